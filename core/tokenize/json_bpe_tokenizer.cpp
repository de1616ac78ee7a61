#include "core/tokenize/json_bpe_tokenizer.h"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "core/tokenize/byte_level.h"
#include "core/tokenize/json_file.h"
#include "core/tokenize/pre_tokenizers.h"
#include "core/tokenize/utf8.h"
#include "core/util/error.h"

namespace qkv {
namespace {

constexpr std::size_t kMaxCachedWord = 64;

// Whether a pre_tokenizer or decoder spec has a ByteLevel step (within sane nesting).
bool mentionsByteLevel(const nlohmann::json& spec, int depth = 0) {
    if (depth > json::kMaxNesting) return false;
    if (spec.is_object()) {
        const auto type = spec.find("type");
        if (type != spec.end() && *type == "ByteLevel") return true;
    }
    if (spec.is_structured())
        for (const auto& child : spec)
            if (mentionsByteLevel(child, depth + 1)) return true;
    return false;
}

struct ParsedAddedToken {
    AddedToken token;
    bool normalized = true;
};

std::vector<ParsedAddedToken> parseAddedTokens(const nlohmann::json& list, const std::string& where,
                                               int modelVocabSize) {
    if (!list.is_array()) json::fail(where, "expected an array");
    std::vector<ParsedAddedToken> tokens;
    std::unordered_map<int, std::string> contentById;
    // Added tokens extend the model vocabulary; anything further out is a broken file.
    const long long limit =
        static_cast<long long>(modelVocabSize) + static_cast<long long>(list.size());
    for (std::size_t i = 0; i < list.size(); ++i) {
        const std::string item = where + "[" + std::to_string(i) + "]";
        const nlohmann::json& spec = list[i];
        ParsedAddedToken parsed;
        AddedToken& t = parsed.token;
        t.id = json::asInt(json::require(spec, "id", item), item + ".id");
        t.content = json::asString(json::require(spec, "content", item), item + ".content");
        if (t.id < 0 || t.id >= limit)
            json::fail(item, "id " + std::to_string(t.id) + " out of range 0.." +
                                 std::to_string(limit - 1));
        if (const auto [it, inserted] = contentById.emplace(t.id, t.content);
            !inserted && it->second != t.content)
            json::fail(item,
                       "id " + std::to_string(t.id) + " is also given to '" + it->second + "'");
        t.singleWord = json::boolOr(spec, "single_word", false, item);
        t.lstrip = json::boolOr(spec, "lstrip", false, item);
        t.rstrip = json::boolOr(spec, "rstrip", false, item);
        parsed.normalized = json::boolOr(spec, "normalized", true, item);
        tokens.push_back(std::move(parsed));
    }
    return tokens;
}

}  // namespace

JsonBpeTokenizer::JsonBpeTokenizer(const std::filesystem::path& tokenizerJson)
    : JsonBpeTokenizer(json::readFile(tokenizerJson), tokenizerJson.string()) {}

JsonBpeTokenizer::JsonBpeTokenizer(const nlohmann::json& doc, const std::string& file) {
    if (!doc.is_object()) json::fail(file, "expected a JSON object");

    const std::string modelWhere = file + ": model";
    const nlohmann::json& model = json::require(doc, "model", file);
    const std::string type = json::stringOr(model, "type", "BPE", modelWhere);
    if (type != "BPE")
        json::fail(modelWhere, "model type '" + type + "' is not supported (only BPE)");
    m_model = std::make_unique<BpeModel>(model, modelWhere);

    const nlohmann::json null;
    const auto section = [&](const char* key) -> const nlohmann::json& {
        const nlohmann::json* value = json::find(doc, key, file);
        return value ? *value : null;
    };
    m_normalizer = parseNormalizer(section("normalizer"), file + ": normalizer");
    m_preTokenizer = parsePreTokenizer(section("pre_tokenizer"), file + ": pre_tokenizer");
    m_byteLevel =
        mentionsByteLevel(section("pre_tokenizer")) || mentionsByteLevel(section("decoder"));

    std::vector<AddedToken> raw, normalized;
    if (const nlohmann::json* list = json::find(doc, "added_tokens", file)) {
        for (ParsedAddedToken& parsed :
             parseAddedTokens(*list, file + ": added_tokens", m_model->vocab().size())) {
            m_added.set(parsed.token.content, parsed.token.id);
            if (!parsed.normalized) {
                raw.push_back(std::move(parsed.token));
                continue;
            }
            // Matched in normalized text, so the pattern is the normalized content.
            if (m_normalizer) {
                NormalizedText content(parsed.token.content, 0);
                m_normalizer->normalize(content);
                parsed.token.content = content.text();
            }
            normalized.push_back(std::move(parsed.token));
        }
    }
    m_rawAdded = AddedTokenMatcher(std::move(raw));
    m_normalizedAdded = AddedTokenMatcher(std::move(normalized));

    m_postProcessor = PostProcessor(
        section("post_processor"), file + ": post_processor",
        [&](int id, const std::string& where) {
            if (const std::string* p = m_added.piece(id)) return *p;
            if (const std::string* p = m_model->vocab().piece(id)) return *p;
            json::fail(where, "token id " + std::to_string(id) + " is not in the vocabulary");
        });
}

JsonBpeTokenizer::~JsonBpeTokenizer() = default;

int JsonBpeTokenizer::vocabSize() const {
    return std::max(m_model->vocab().size(), m_added.size());
}

std::string JsonBpeTokenizer::piece(int id) const {
    if (const std::string* added = m_added.piece(id)) return *added;
    return m_model->vocab().at(id);
}

std::vector<Token> JsonBpeTokenizer::encode(std::string_view text) const {
    utf8::validate(text, "the input text");
    std::vector<Token> tokens;
    WordCache cache;
    for (const TextSegment& segment : m_rawAdded.split(text)) {
        if (segment.tokenId >= 0) {
            tokens.push_back(
                {segment.tokenId, piece(segment.tokenId), segment.begin, segment.end, false});
            continue;
        }
        NormalizedText part(text.substr(segment.begin, segment.end - segment.begin), segment.begin);
        if (m_normalizer) m_normalizer->normalize(part);
        encodePart(part, text, cache, tokens);
    }
    m_postProcessor.apply(tokens, text.size());
    return tokens;
}

void JsonBpeTokenizer::encodePart(const NormalizedText& part, std::string_view text,
                                  WordCache& cache, std::vector<Token>& tokens) const {
    const auto push = [&](int id, Span span) {
        utf8::widenToCharacters(text, span.begin, span.end);
        tokens.push_back({id, piece(id), span.begin, span.end, false});
    };
    for (const TextSegment& segment : m_normalizedAdded.split(part.text())) {
        if (segment.tokenId >= 0) {
            push(segment.tokenId, part.originalSpan(segment.begin, segment.end));
            continue;
        }
        std::vector<NormalizedText> words{part.slice(segment.begin, segment.end)};
        if (m_preTokenizer) m_preTokenizer->split(words);
        for (const NormalizedText& word : words) {
            std::vector<PieceSpan> computed;
            const std::vector<PieceSpan>* pieces = &computed;
            if (word.size() <= kMaxCachedWord) {
                auto [it, inserted] = cache.try_emplace(word.text());
                if (inserted) it->second = m_model->tokenize(word.text());
                pieces = &it->second;
            } else {
                computed = m_model->tokenize(word.text());
            }
            for (const PieceSpan& p : *pieces) push(p.id, word.originalSpan(p.begin, p.end));
        }
    }
}

std::string JsonBpeTokenizer::displayText(int id) const {
    const std::string p = piece(id);
    if (m_added.piece(id)) return p;
    if (m_byteLevel) {
        if (const auto bytes = byte_level::decode(p)) return utf8::escapeInvalid(*bytes);
        return p;
    }
    // SentencePiece style: "<0x0A>" is the byte 0x0A, "▁" a space.
    if (m_model->byteFallback() && p.size() == 6 && p.starts_with("<0x") && p.ends_with(">")) {
        const auto hex = [](char c) {
            return c >= '0' && c <= '9' ? c - '0' : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
        };
        const int high = hex(p[3]), low = hex(p[4]);
        if (high >= 0 && low >= 0)
            return utf8::escapeInvalid(std::string(1, static_cast<char>(high * 16 + low)));
    }
    return metaspaceAsSpaces(p);
}

}  // namespace qkv
