#include "core/tokenize/gpt2_tokenizer.h"

#include <cstdio>
#include <unordered_map>

#include "core/tokenize/byte_level.h"
#include "core/tokenize/utf8.h"
#include "core/tokenize/vocab_files.h"
#include "core/util/error.h"

namespace qkv {
namespace {

constexpr const char* kEndOfText = "<|endoftext|>";
// Pieces longer than this are not worth caching (they rarely repeat).
constexpr std::size_t kMaxCachedWord = 64;

}  // namespace

Gpt2Tokenizer::Gpt2Tokenizer(const std::filesystem::path& vocabJson,
                             const std::filesystem::path& mergesTxt)
    : m_vocabFile(vocabJson.string()),
      m_vocab(readVocabJson(vocabJson)),
      m_merges(readMergesTxt(mergesTxt), m_vocab, "", mergesTxt.string()),
      m_pattern(byte_level::kGpt2Pattern, "GPT-2 pre-tokenizer") {
    for (int b = 0; b < 256; ++b)
        m_byteIds[b] = m_vocab.find(byte_level::charOf(static_cast<unsigned char>(b)));
    m_unknownId = m_vocab.find(kEndOfText);
    if (m_unknownId != Vocabulary::kMissing)
        m_specials = AddedTokenMatcher({AddedToken{kEndOfText, m_unknownId}});
}

std::vector<PieceSpan> Gpt2Tokenizer::encodeWord(std::string_view word) const {
    std::vector<PieceSpan> symbols(word.size());
    for (std::size_t i = 0; i < word.size(); ++i)
        symbols[i] = {m_byteIds[static_cast<unsigned char>(word[i])], i, i + 1};
    m_merges.apply(symbols);
    return symbols;
}

std::vector<Token> Gpt2Tokenizer::encode(std::string_view text) const {
    utf8::validate(text, "the input text");
    std::vector<Token> tokens;
    std::unordered_map<std::string, std::vector<PieceSpan>> cache;
    for (const TextSegment& segment : m_specials.split(text)) {
        if (segment.tokenId >= 0) {
            tokens.push_back(
                {segment.tokenId, m_vocab.at(segment.tokenId), segment.begin, segment.end, false});
            continue;
        }
        const std::string_view part = text.substr(segment.begin, segment.end - segment.begin);
        for (const auto& [begin, end] : m_pattern.findAll(part)) {
            const std::string_view word = part.substr(begin, end - begin);
            const std::size_t offset = segment.begin + begin;
            std::vector<PieceSpan> computed;
            const std::vector<PieceSpan>* pieces = nullptr;
            if (word.size() <= kMaxCachedWord) {
                auto [it, inserted] = cache.try_emplace(std::string(word));
                if (inserted) it->second = encodeWord(word);
                pieces = &it->second;
            } else {
                computed = encodeWord(word);
                pieces = &computed;
            }
            for (const PieceSpan& p : *pieces) {
                int id = p.id;
                if (id == Vocabulary::kMissing) {
                    if (m_unknownId == Vocabulary::kMissing) {
                        char byte[8];
                        std::snprintf(byte, sizeof byte, "0x%02X",
                                      static_cast<unsigned char>(word[p.begin]));
                        throw Error(m_vocabFile + ": no token for byte " + byte +
                                    " of the input (byte offset " +
                                    std::to_string(offset + p.begin) + ") and no " + kEndOfText +
                                    " to stand for unknown text");
                    }
                    id = m_unknownId;
                }
                std::size_t b = offset + p.begin, e = offset + p.end;
                utf8::widenToCharacters(text, b, e);
                tokens.push_back({id, m_vocab.at(id), b, e, false});
            }
        }
    }
    return tokens;
}

std::string Gpt2Tokenizer::displayText(int id) const {
    const std::string& piece = m_vocab.at(id);
    if (const auto bytes = byte_level::decode(piece)) return utf8::escapeInvalid(*bytes);
    return piece;
}

}  // namespace qkv
