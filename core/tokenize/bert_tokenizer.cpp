#include "core/tokenize/bert_tokenizer.h"

#include <nlohmann/json.hpp>

#include "core/tokenize/json_file.h"
#include "core/tokenize/utf8.h"
#include "core/tokenize/vocab_files.h"
#include "core/tokenize/wordpiece.h"
#include "core/util/error.h"

namespace qkv {

BertTokenizer::BertTokenizer(const std::filesystem::path& vocabTxt,
                             const std::filesystem::path& tokenizerConfig)
    : m_vocab(readVocabTxt(vocabTxt)) {
    const nlohmann::json config = json::readOptionalObject(tokenizerConfig);
    const std::string where = tokenizerConfig.string();

    m_options.lowerCase = json::boolOr(config, "do_lower_case", true, where);
    const nlohmann::json* strip = json::find(config, "strip_accents", where);
    m_options.stripAccents =
        strip ? json::asBool(*strip, json::member(where, "strip_accents")) : m_options.lowerCase;
    m_options.splitChineseChars = json::boolOr(config, "tokenize_chinese_chars", true, where);

    const auto idOf = [&](const std::string& token, const char* role) {
        const int id = m_vocab.find(token);
        if (id == Vocabulary::kMissing)
            throw Error(vocabTxt.string() + ": the " + role + " token '" + token +
                        "' is not in the vocabulary");
        return id;
    };
    const std::string unk = json::tokenOr(config, "unk_token", "[UNK]", where);
    const std::string cls = json::tokenOr(config, "cls_token", "[CLS]", where);
    const std::string sep = json::tokenOr(config, "sep_token", "[SEP]", where);
    m_unknownId = idOf(unk, "unknown");
    m_clsId = idOf(cls, "classifier");
    m_sepId = idOf(sep, "separator");
    std::vector<AddedToken> specials;
    for (const std::string& token :
         {unk, cls, sep, json::tokenOr(config, "pad_token", "[PAD]", where),
          json::tokenOr(config, "mask_token", "[MASK]", where)})
        if (const int id = m_vocab.find(token); id != Vocabulary::kMissing)
            specials.push_back({token, id});
    m_specials = AddedTokenMatcher(std::move(specials));
}

std::vector<Token> BertTokenizer::encode(std::string_view text) const {
    utf8::validate(text, "the input text");
    std::vector<Token> tokens;
    tokens.push_back({m_clsId, m_vocab.at(m_clsId), 0, 0, true});
    for (const TextSegment& segment : m_specials.split(text)) {
        if (segment.tokenId >= 0) {
            tokens.push_back(
                {segment.tokenId, m_vocab.at(segment.tokenId), segment.begin, segment.end, false});
            continue;
        }
        const NormalizedText part(text.substr(segment.begin, segment.end - segment.begin),
                                  segment.begin);
        for (const NormalizedText& word : basicTokenize(part, m_options)) {
            for (const PieceSpan& p : wordPiece(word.text(), m_vocab, m_unknownId)) {
                Span span = word.originalSpan(p.begin, p.end);
                utf8::widenToCharacters(text, span.begin, span.end);
                tokens.push_back({p.id, m_vocab.at(p.id), span.begin, span.end, false});
            }
        }
    }
    tokens.push_back({m_sepId, m_vocab.at(m_sepId), text.size(), text.size(), true});
    return tokens;
}

std::string BertTokenizer::displayText(int id) const {
    const std::string& piece = m_vocab.at(id);
    return piece.starts_with("##") && piece.size() > 2 ? piece.substr(2) : piece;
}

}  // namespace qkv
