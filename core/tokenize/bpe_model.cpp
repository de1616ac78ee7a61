#include "core/tokenize/bpe_model.h"

#include <cstdio>
#include <nlohmann/json.hpp>
#include <optional>

#include "core/tokenize/json_file.h"
#include "core/tokenize/utf8.h"
#include "core/tokenize/vocab_files.h"
#include "core/util/error.h"

namespace qkv {
namespace {

std::vector<std::pair<std::string, std::string>> parseMerges(const nlohmann::json& list,
                                                             const std::string& where) {
    if (!list.is_array()) json::fail(where, "expected an array");
    std::vector<std::pair<std::string, std::string>> merges;
    merges.reserve(list.size());
    for (std::size_t i = 0; i < list.size(); ++i) {
        const std::string entry = where + "[" + std::to_string(i) + "]";
        const nlohmann::json& item = list[i];
        if (item.is_array()) {
            if (item.size() != 2) json::fail(entry, "expected a pair [\"a\", \"b\"]");
            merges.emplace_back(json::asString(item[0], entry), json::asString(item[1], entry));
            continue;
        }
        const std::string line = json::asString(item, entry);
        if (line.starts_with("#version")) continue;
        auto merge = parseMergeLine(line);
        if (!merge)
            json::fail(entry, "expected \"a b\" (two pieces, one space), got '" + line + "'");
        merges.push_back(std::move(*merge));
    }
    return merges;
}

}  // namespace

BpeModel::BpeModel(const nlohmann::json& spec, const std::string& where)
    : m_where(where),
      m_vocab(parseVocabObject(json::require(spec, "vocab", where), where + ".vocab")) {
    m_prefix = json::stringOr(spec, "continuing_subword_prefix", "", where);
    m_suffix = json::stringOr(spec, "end_of_word_suffix", "", where);
    if (const nlohmann::json* merges = json::find(spec, "merges", where))
        m_merges = BpeMerges(parseMerges(*merges, where + ".merges"), m_vocab, m_prefix,
                             where + ".merges");
    m_unknown = json::stringOr(spec, "unk_token", "", where);
    m_unknownId = m_vocab.find(m_unknown);
    m_fuseUnknown = json::boolOr(spec, "fuse_unk", false, where);
    m_byteFallback = json::boolOr(spec, "byte_fallback", false, where);
    m_ignoreMerges = json::boolOr(spec, "ignore_merges", false, where);
    for (int b = 0; b < 256; ++b) {
        char name[8];
        std::snprintf(name, sizeof name, "<0x%02X>", b);
        m_byteIds[b] = m_vocab.find(name);
    }
}

std::vector<PieceSpan> BpeModel::tokenize(std::string_view word) const {
    std::vector<PieceSpan> symbols;
    if (word.empty()) return symbols;
    if (m_ignoreMerges) {
        if (const int id = m_vocab.find(word); id != Vocabulary::kMissing)
            return {{id, 0, word.size()}};
    }
    std::optional<PieceSpan> unknown;  // pending, so that fuse_unk can extend it
    const auto flushUnknown = [&] {
        if (unknown) symbols.push_back(*unknown);
        unknown.reset();
    };
    std::string piece;
    for (std::size_t pos = 0; pos < word.size();) {
        const std::size_t begin = pos;
        pos += utf8::sequenceLength(static_cast<unsigned char>(word[pos]));
        piece.clear();
        if (begin > 0) piece += m_prefix;
        piece.append(word.substr(begin, pos - begin));
        if (pos == word.size()) piece += m_suffix;

        if (const int id = m_vocab.find(piece); id != Vocabulary::kMissing) {
            flushUnknown();
            symbols.push_back({id, begin, pos});
            continue;
        }
        if (m_byteFallback) {
            bool complete = true;
            for (char c : piece)
                complete = complete && m_byteIds[static_cast<unsigned char>(c)] >= 0;
            if (complete) {
                flushUnknown();
                for (char c : piece)
                    symbols.push_back({m_byteIds[static_cast<unsigned char>(c)], begin, pos});
                continue;
            }
        }
        if (m_unknown.empty()) continue;  // Hugging Face drops the character
        if (m_unknownId == Vocabulary::kMissing)
            throw Error(m_where + ": unk_token '" + m_unknown + "' is not in the vocabulary");
        if (unknown && m_fuseUnknown) {
            unknown->end = pos;
        } else {
            flushUnknown();
            unknown = PieceSpan{m_unknownId, begin, pos};
        }
    }
    flushUnknown();
    m_merges.apply(symbols);
    return symbols;
}

}  // namespace qkv
