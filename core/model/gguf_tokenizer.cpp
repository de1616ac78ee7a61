#include "core/model/gguf_tokenizer.h"

#include <map>
#include <nlohmann/json.hpp>

#include "core/tokenize/json_bpe_tokenizer.h"
#include "core/util/error.h"

namespace qkv {
namespace {

// llama.cpp's token types (llama_token_type): control tokens are special, user-defined ones are
// added tokens matched in the text as they are.
constexpr std::int64_t kControl = 3, kUserDefined = 4;

// How the models whose GGUF files name these `pre` values split text, as their tokenizer.json
// says (the Split pattern; "ignore_merges" where the model's BPE takes whole words from the
// vocabulary first) and whether their normalizer is NFC.
struct SplitRule {
    const char* pattern;  // nullptr: GPT-2's own byte-level split
    bool ignoreMerges;
    bool nfc;
};
const std::map<std::string, SplitRule>& splitRules() {
    static const char* kLlama3 =
        R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)";
    static const char* kQwen2 =
        R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)";
    static const char* kO200k =
        R"([^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+)";
    static const std::map<std::string, SplitRule> all = {
        {"gpt2", {nullptr, false, false}},     {"default", {nullptr, false, false}},
        {"llama-bpe", {kLlama3, true, false}}, {"llama3", {kLlama3, true, false}},
        {"qwen2", {kQwen2, false, true}},      {"gpt-4o", {kO200k, true, false}},
    };
    return all;
}

}  // namespace

std::unique_ptr<Tokenizer> ggufTokenizer(const GgufFile& file) {
    const std::string where = file.path().string();
    const auto model = file.string("tokenizer.ggml.model");
    if (!model) throw Error("the file has no tokenizer (tokenizer.ggml.model)");
    if (*model != "gpt2")
        throw Error("GGUF tokenizers of kind \"" + *model +
                    "\" (tokenizer.ggml.model) are not read yet; byte-level BPE (\"gpt2\") is");
    const std::string pre = file.string("tokenizer.ggml.pre").value_or("default");
    const auto found = splitRules().find(pre);
    if (found == splitRules().end())
        throw Error("the GGUF tokenizer's split pattern \"" + pre +
                    "\" (tokenizer.ggml.pre) is not known to QKV Lab yet");
    const SplitRule& split = found->second;
    const GgufArray* tokens = file.array("tokenizer.ggml.tokens");
    const GgufArray* merges = file.array("tokenizer.ggml.merges");
    const GgufArray* types = file.array("tokenizer.ggml.token_type");
    if (!tokens || !merges)
        throw Error("tokenizer.ggml.tokens or tokenizer.ggml.merges is missing");
    if (types && types->size() != tokens->size())
        throw Error("tokenizer.ggml.token_type lists " + std::to_string(types->size()) +
                    " tokens, tokenizer.ggml.tokens " + std::to_string(tokens->size()));

    auto text = [&](const GgufValue& v, const char* key) -> const std::string& {
        const auto* s = std::get_if<std::string>(&v.value);
        if (!s) throw Error(std::string(key) + " holds a value that is not a string");
        return *s;
    };
    nlohmann::json vocab = nlohmann::json::object(), added = nlohmann::json::array();
    for (size_t id = 0; id < tokens->size(); ++id) {
        const std::string& piece = text((*tokens)[id], "tokenizer.ggml.tokens");
        vocab[piece] = id;
        std::int64_t type = 1;
        if (types) {
            const GgufValue& t = (*types)[id];
            if (const auto* i = std::get_if<std::int64_t>(&t.value)) type = *i;
            if (const auto* u = std::get_if<std::uint64_t>(&t.value))
                type = static_cast<std::int64_t>(*u);
        }
        if (type == kControl || type == kUserDefined)
            added.push_back({{"id", id},
                             {"content", piece},
                             {"single_word", false},
                             {"lstrip", false},
                             {"rstrip", false},
                             {"normalized", type == kUserDefined},
                             {"special", type == kControl}});
    }
    nlohmann::json mergeList = nlohmann::json::array();
    for (const GgufValue& m : *merges) mergeList.push_back(text(m, "tokenizer.ggml.merges"));

    nlohmann::json byteLevel = {{"type", "ByteLevel"},
                                {"add_prefix_space", false},
                                {"trim_offsets", false},
                                {"use_regex", split.pattern == nullptr}};
    nlohmann::json preTokenizer = byteLevel;
    if (split.pattern)
        preTokenizer = {{"type", "Sequence"},
                        {"pretokenizers",
                         {{{"type", "Split"},
                           {"pattern", {{"Regex", split.pattern}}},
                           {"behavior", "Isolated"},
                           {"invert", false}},
                          byteLevel}}};
    nlohmann::json doc = {
        {"added_tokens", added},
        {"normalizer", split.nfc ? nlohmann::json{{"type", "NFC"}} : nlohmann::json()},
        {"pre_tokenizer", preTokenizer},
        {"post_processor", byteLevel},
        {"decoder", byteLevel},
        {"model",
         {{"type", "BPE"},
          {"vocab", vocab},
          {"merges", mergeList},
          {"byte_fallback", false},
          {"ignore_merges", split.ignoreMerges}}}};
    if (file.boolean("tokenizer.ggml.add_bos_token").value_or(false)) {
        const auto bos = file.integer("tokenizer.ggml.bos_token_id");
        if (!bos || *bos < 0 || static_cast<std::uint64_t>(*bos) >= tokens->size())
            throw Error("tokenizer.ggml.add_bos_token is set without a valid bos_token_id");
        const std::string& piece = text((*tokens)[*bos], "tokenizer.ggml.tokens");
        doc["post_processor"] = {
            {"type", "TemplateProcessing"},
            {"single",
             {{{"SpecialToken", {{"id", piece}, {"type_id", 0}}}},
              {{"Sequence", {{"id", "A"}, {"type_id", 0}}}}}},
            {"special_tokens", {{piece, {{"id", piece}, {"ids", {*bos}}, {"tokens", {piece}}}}}}};
    }
    return std::make_unique<JsonBpeTokenizer>(doc, where + " (tokenizer.ggml.*)");
}

}  // namespace qkv
