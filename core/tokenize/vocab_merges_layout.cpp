#include "core/tokenize/vocab_merges_layout.h"

#include <functional>

#include "core/tokenize/json_file.h"
#include "core/tokenize/vocab_files.h"

namespace qkv {
namespace {

using Json = nlohmann::json;

// Qwen2Tokenizer's PRETOKENIZE_REGEX: contractions, letters with one leading non-letter, single
// digits, punctuation runs, newlines, whitespace.
constexpr const char* kQwen2Pattern =
    R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)";

using Style = TokenizerHints::Style;

bool startsWith(const std::string& s, const char* prefix) { return s.rfind(prefix, 0) == 0; }

// From tokenizer_config.json's tokenizer_class, else the family's hint; `vocabulary` is read
// only when neither says (a bare vocab.json + merges.txt).
Style styleOf(const std::string& cls, Style hinted,
              const std::function<const Vocabulary&()>& vocabulary) {
    if (startsWith(cls, "Qwen2Tokenizer") || hinted == Style::Qwen2) return Style::Qwen2;
    // BART's tokenizer is RoBERTa's (transformers converts both with one converter).
    if (startsWith(cls, "Roberta") || startsWith(cls, "Bart") || hinted == Style::Roberta)
        return Style::Roberta;
    if (!cls.empty() || hinted != Style::Unknown) return Style::Gpt2;
    const Vocabulary& vocab = vocabulary();
    const auto has = [&](const char* piece) { return vocab.find(piece) != Vocabulary::kMissing; };
    if (has("<s>") && has("</s>") && has("<mask>")) return Style::Roberta;
    return Style::Gpt2;
}

Json addedToken(const std::string& content, int id, bool normalized, bool lstrip = false) {
    return {{"id", id},         {"content", content}, {"single_word", false},
            {"lstrip", lstrip}, {"rstrip", false},    {"normalized", normalized},
            {"special", true}};
}

// tokenizer_config.json's {"151643": {"content": ..., "lstrip": ...}, ...}.
Json addedTokensDecoder(const Json& tokenizerConfig, const std::string& where) {
    Json list = Json::array();
    const Json* decoder = json::find(tokenizerConfig, "added_tokens_decoder", where);
    if (!decoder) return list;
    const std::string field = json::member(where, "added_tokens_decoder");
    if (!decoder->is_object()) json::fail(field, "expected an object");
    for (auto entry = decoder->begin(); entry != decoder->end(); ++entry) {
        int id = -1;
        try {
            id = std::stoi(entry.key());
        } catch (const std::exception&) {
            json::fail(field, "key '" + entry.key() + "' is not an id");
        }
        Json token = entry.value();
        if (!token.is_object()) json::fail(field, "expected objects");
        token["id"] = id;
        list.push_back(std::move(token));
    }
    return list;
}

Json byteLevel(bool useRegex) {
    return {{"type", "ByteLevel"},
            {"add_prefix_space", false},
            {"trim_offsets", true},
            {"use_regex", useRegex}};
}

}  // namespace

std::optional<nlohmann::json> vocabMergesLayout(const std::filesystem::path& folder,
                                                const TokenizerHints& hints) {
    const std::string configWhere = (folder / "tokenizer_config.json").string();
    const Json tokenizerConfig = json::readOptionalObject(folder / "tokenizer_config.json");
    std::optional<Vocabulary> read;
    const auto vocabulary = [&]() -> const Vocabulary& {
        if (!read) read = readVocabJson(folder / "vocab.json");  // validated
        return *read;
    };
    const Style style = styleOf(json::stringOr(tokenizerConfig, "tokenizer_class", "", configWhere),
                                hints.style, vocabulary);
    const std::string bos = json::tokenOr(tokenizerConfig, "bos_token", "", configWhere);
    const bool addBos =
        json::boolOr(tokenizerConfig, "add_bos_token", false, configWhere) || hints.alwaysAddsBos;
    if (style == Style::Gpt2 && !addBos) return std::nullopt;

    Json merges = Json::array();
    for (const auto& [a, b] : readMergesTxt(folder / "merges.txt")) merges.push_back(a + " " + b);
    const Vocabulary& vocab = vocabulary();
    const auto idOf = [&](const std::string& piece) { return vocab.find(piece); };
    Json pieces = Json::object();
    for (int id = 0; id < vocab.size(); ++id)
        if (const std::string* piece = vocab.piece(id)) pieces[*piece] = id;

    Json doc = {{"normalizer", nullptr}, {"pre_tokenizer", byteLevel(true)}};
    Json added = Json::array();
    switch (style) {
        case Style::Qwen2:
            doc["normalizer"] = {{"type", "NFC"}};
            doc["pre_tokenizer"] = {{"type", "Sequence"},
                                    {"pretokenizers",
                                     {{{"type", "Split"},
                                       {"pattern", {{"Regex", kQwen2Pattern}}},
                                       {"behavior", "Isolated"},
                                       {"invert", false}},
                                      byteLevel(false)}}};
            added = addedTokensDecoder(tokenizerConfig, configWhere);
            break;
        case Style::Roberta: {
            for (const char* special : {"<s>", "<pad>", "</s>", "<unk>", "<mask>"})
                if (idOf(special) >= 0)
                    added.push_back(addedToken(special, idOf(special), false,
                                               std::string(special) == "<mask>"));
            if (idOf("<s>") < 0 || idOf("</s>") < 0)
                json::fail((folder / "vocab.json").string(),
                           "a RoBERTa vocabulary needs <s> and </s>");
            doc["post_processor"] = {{"type", "RobertaProcessing"},
                                     {"sep", {"</s>", idOf("</s>")}},
                                     {"cls", {"<s>", idOf("<s>")}}};
            break;
        }
        case Style::Unknown:  // styleOf always decides; GPT-2's is its last word
        case Style::Gpt2: {
            const std::string first = bos.empty() ? "</s>" : bos;
            if (idOf(first) < 0)
                json::fail(configWhere, "bos_token '" + first + "' is not in vocab.json");
            added.push_back(addedToken(first, idOf(first), false));
            doc["post_processor"] = {
                {"type", "TemplateProcessing"},
                {"single",
                 {{{"SpecialToken", {{"id", first}, {"type_id", 0}}}},
                  {{"Sequence", {{"id", "A"}, {"type_id", 0}}}}}},
                {"special_tokens",
                 {{first, {{"id", first}, {"ids", {idOf(first)}}, {"tokens", {first}}}}}}};
            break;
        }
    }
    doc["added_tokens"] = std::move(added);
    doc["decoder"] = {{"type", "ByteLevel"}};
    doc["model"] = {{"type", "BPE"},
                    {"vocab", std::move(pieces)},
                    {"merges", std::move(merges)},
                    {"continuing_subword_prefix", ""},
                    {"end_of_word_suffix", ""},
                    {"fuse_unk", false},
                    {"byte_fallback", false}};
    return doc;
}

}  // namespace qkv
