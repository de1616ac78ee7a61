#include "core/tokenize/bert_basic_tokenizer.h"

#include "core/tokenize/unicode_props.h"

namespace qkv {
namespace {

bool isBertWhitespace(char32_t cp) {
    return cp == ' ' || cp == '\t' || cp == '\n' || cp == '\r' || unicode::isSpaceSeparator(cp);
}

bool isBertControl(char32_t cp) {
    if (cp == '\t' || cp == '\n' || cp == '\r') return false;
    return unicode::isOtherCategory(cp);
}

bool isBertPunctuation(char32_t cp) {
    // All non-alphanumeric ASCII counts, e.g. '$' and '^', which Unicode calls symbols.
    if ((cp >= 33 && cp <= 47) || (cp >= 58 && cp <= 64) || (cp >= 91 && cp <= 96) ||
        (cp >= 123 && cp <= 126))
        return true;
    return unicode::isPunctuationCategory(cp);
}

bool isCjkIdeograph(char32_t cp) {
    return (cp >= 0x4E00 && cp <= 0x9FFF) || (cp >= 0x3400 && cp <= 0x4DBF) ||
           (cp >= 0x20000 && cp <= 0x2A6DF) || (cp >= 0x2A700 && cp <= 0x2B73F) ||
           (cp >= 0x2B740 && cp <= 0x2B81F) || (cp >= 0x2B820 && cp <= 0x2CEAF) ||
           (cp >= 0xF900 && cp <= 0xFAFF) || (cp >= 0x2F800 && cp <= 0x2FA1F);
}

// Python's str.split() separators left after cleaning (other white space became ' ').
bool isSeparator(char32_t cp) { return cp == ' ' || cp == 0x2028 || cp == 0x2029; }

void keep(char32_t cp, std::string& out) { utf8::append(out, cp); }

// Appends the pieces of `word` split around punctuation characters.
void splitOnPunctuation(const NormalizedText& word, std::vector<NormalizedText>& out) {
    const std::string& s = word.text();
    std::size_t start = 0;
    for (std::size_t pos = 0; pos < s.size();) {
        const std::size_t begin = pos;
        if (isBertPunctuation(utf8::decode(s, pos))) {
            if (start < begin) out.push_back(word.slice(start, begin));
            out.push_back(word.slice(begin, pos));
            start = pos;
        }
    }
    if (start < s.size()) out.push_back(word.slice(start, s.size()));
}

}  // namespace

std::vector<NormalizedText> basicTokenize(NormalizedText text,
                                          const BasicTokenizerOptions& options) {
    // transformers lower-cases the whole text first (PreTrainedTokenizer.tokenize), then once
    // more per word; the second pass only matters after NFC, so both are done.
    if (options.lowerCase) text.lowercase();
    text.mapCharacters([](char32_t cp, std::string& out) {
        if (cp == 0 || cp == 0xFFFD || isBertControl(cp)) return;
        if (isBertWhitespace(cp))
            out += ' ';
        else
            keep(cp, out);
    });
    if (options.splitChineseChars) {
        text.mapCharacters([](char32_t cp, std::string& out) {
            if (!isCjkIdeograph(cp)) return keep(cp, out);
            out += ' ';
            keep(cp, out);
            out += ' ';
        });
    }
    text.normalize(NormalizedText::Form::Nfc);

    std::vector<NormalizedText> words;
    const std::string& s = text.text();
    std::size_t start = 0;
    for (std::size_t pos = 0; pos <= s.size();) {
        const std::size_t begin = pos;
        const bool atEnd = pos == s.size();
        if (!atEnd && !isSeparator(utf8::decode(s, pos))) continue;
        if (start < begin) {
            NormalizedText word = text.slice(start, begin);
            if (options.lowerCase) word.lowercase();
            if (options.stripAccents) {
                word.normalize(NormalizedText::Form::Nfd);
                word.mapCharacters([](char32_t cp, std::string& out) {
                    if (!unicode::isNonspacingMark(cp)) keep(cp, out);
                });
            }
            splitOnPunctuation(word, words);
        }
        if (atEnd) break;
        start = pos;
    }
    return words;
}

}  // namespace qkv
