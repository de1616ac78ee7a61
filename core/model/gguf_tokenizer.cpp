#include "core/model/gguf_tokenizer.h"

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <string_view>
#include <unordered_map>

#include "core/tokenize/json_bpe_tokenizer.h"
#include "core/tokenize/utf8.h"
#include "core/util/error.h"

namespace qkv {
namespace {

// llama.cpp's token types (llama_token_type): control tokens are special, user-defined ones are
// added tokens matched in the text as they are.
constexpr std::int64_t kNormal = 1, kControl = 3, kUserDefined = 4;

// How the models whose GGUF files name these `pre` values split text, as their tokenizer.json
// says (the Split pattern; "ignore_merges" where the model's BPE takes whole words from the
// vocabulary first), whether their normalizer is NFC, and whether llama.cpp adds the BOS token
// when the file does not say (tokenizer.ggml.add_bos_token).
struct SplitRule {
    const char* pattern;  // nullptr: GPT-2's own byte-level split
    bool ignoreMerges;
    bool nfc;
    bool addBos;
};
const std::map<std::string, SplitRule>& splitRules() {
    static const char* kLlama3 =
        R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)";
    static const char* kQwen2 =
        R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)";
    static const char* kO200k =
        R"([^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+)";
    static const std::map<std::string, SplitRule> all = {
        {"gpt2", {nullptr, false, false, false}},
        {"gpt-2", {nullptr, false, false, false}},
        {"default", {nullptr, false, false, false}},
        {"modern-bert", {nullptr, false, false, false}},
        {"llama-bpe", {kLlama3, true, false, true}},
        {"llama3", {kLlama3, true, false, true}},
        {"qwen2", {kQwen2, false, true, false}},
        {"gpt-4o", {kO200k, true, false, false}},
    };
    return all;
}

const std::string& textOf(const GgufValue& v, const char* key) {
    const auto* s = std::get_if<std::string>(&v.value);
    if (!s) throw Error(std::string(key) + " holds a value that is not a string");
    return *s;
}

// tokenizer.ggml.tokens with each token's type (normal where token_type is absent).
struct GgufVocabulary {
    const GgufArray* tokens = nullptr;
    std::vector<std::int64_t> types;

    std::size_t size() const { return tokens->size(); }
    const std::string& piece(std::size_t id) const {
        return textOf((*tokens)[id], "tokenizer.ggml.tokens");
    }
};

GgufVocabulary readVocabulary(const GgufFile& file) {
    GgufVocabulary v;
    v.tokens = file.array("tokenizer.ggml.tokens");
    if (!v.tokens) throw Error("tokenizer.ggml.tokens is missing");
    v.types.assign(v.tokens->size(), kNormal);
    if (const GgufArray* types = file.array("tokenizer.ggml.token_type")) {
        if (types->size() != v.size())
            throw Error("tokenizer.ggml.token_type lists " + std::to_string(types->size()) +
                        " tokens, tokenizer.ggml.tokens " + std::to_string(v.size()));
        for (std::size_t id = 0; id < v.size(); ++id) {
            const GgufValue& t = (*types)[id];
            if (const auto* i = std::get_if<std::int64_t>(&t.value)) v.types[id] = *i;
            if (const auto* u = std::get_if<std::uint64_t>(&t.value))
                v.types[id] = static_cast<std::int64_t>(*u);
        }
    }
    return v;
}

// Where the UTF-8 character after the one at `at` starts.
std::size_t nextCharacter(std::string_view text, std::size_t at) {
    do ++at;
    while (at < text.size() && utf8::isContinuation(static_cast<unsigned char>(text[at])));
    return at;
}

// The tokenizer.json parts every kind shares: the vocabulary, and control and user-defined
// tokens as added tokens.
void addVocabulary(const GgufVocabulary& v, nlohmann::json& doc) {
    nlohmann::json vocab = nlohmann::json::object(), added = nlohmann::json::array();
    for (std::size_t id = 0; id < v.size(); ++id) {
        const std::string& piece = v.piece(id);
        vocab[piece] = id;
        if (v.types[id] == kControl || v.types[id] == kUserDefined)
            added.push_back({{"id", id},
                             {"content", piece},
                             {"single_word", false},
                             {"lstrip", false},
                             {"rstrip", false},
                             {"normalized", v.types[id] == kUserDefined},
                             {"special", v.types[id] == kControl}});
    }
    doc["model"]["vocab"] = std::move(vocab);
    doc["added_tokens"] = std::move(added);
}

// The piece of a special token id (tokenizer.ggml.<name>_token_id, or llama.cpp's default).
std::optional<std::string> specialPiece(const GgufFile& file, const GgufVocabulary& v,
                                        const std::string& name,
                                        std::optional<std::int64_t> fallback) {
    const std::string key = "tokenizer.ggml." + name + "_token_id";
    const auto id = file.integer(key).has_value() ? file.integer(key) : fallback;
    if (!id) return std::nullopt;
    if (*id < 0 || static_cast<std::uint64_t>(*id) >= v.size())
        throw Error(key + " " + std::to_string(*id) + " is not one of the " +
                    std::to_string(v.size()) + " tokens");
    return v.piece(static_cast<std::size_t>(*id));
}

// BOS and EOS around the text where the file (or llama.cpp's default for its kind) adds them.
void addSpecialTokens(const GgufFile& file, const GgufVocabulary& v, bool addBos, bool addEos,
                      std::optional<std::int64_t> bosDefault,
                      std::optional<std::int64_t> eosDefault, nlohmann::json& doc) {
    nlohmann::json single = nlohmann::json::array(), specials = nlohmann::json::object();
    auto add = [&](const char* name, std::optional<std::int64_t> fallback) {
        const auto piece = specialPiece(file, v, name, fallback);
        if (!piece)
            throw Error(std::string("tokenizer.ggml.add_") + name + "_token is set without a " +
                        name + "_token_id");
        single.push_back({{"SpecialToken", {{"id", *piece}, {"type_id", 0}}}});
        const int id = doc["model"]["vocab"][*piece].get<int>();
        specials[*piece] = {{"id", *piece}, {"ids", {id}}, {"tokens", {*piece}}};
    };
    if (file.boolean("tokenizer.ggml.add_bos_token").value_or(addBos)) add("bos", bosDefault);
    single.push_back({{"Sequence", {{"id", "A"}, {"type_id", 0}}}});
    if (file.boolean("tokenizer.ggml.add_eos_token").value_or(addEos)) add("eos", eosDefault);
    if (single.size() > 1)
        doc["post_processor"] = {
            {"type", "TemplateProcessing"}, {"single", single}, {"special_tokens", specials}};
}

// tokenizer.ggml.model = "gpt2": the tokenizer.json of a byte-level BPE model, its split
// pattern chosen by `pre`.
nlohmann::json byteLevelBpe(const GgufFile& file) {
    const std::string pre = file.string("tokenizer.ggml.pre").value_or("default");
    const auto found = splitRules().find(pre);
    if (found == splitRules().end())
        throw Error("the GGUF tokenizer's split pattern \"" + pre +
                    "\" (tokenizer.ggml.pre) is not known to QKV Lab yet");
    const SplitRule& split = found->second;
    const GgufVocabulary v = readVocabulary(file);
    const GgufArray* merges = file.array("tokenizer.ggml.merges");
    if (!merges) throw Error("tokenizer.ggml.merges is missing");
    nlohmann::json mergeList = nlohmann::json::array();
    for (const GgufValue& m : *merges) mergeList.push_back(textOf(m, "tokenizer.ggml.merges"));

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
        {"normalizer", split.nfc ? nlohmann::json{{"type", "NFC"}} : nlohmann::json()},
        {"pre_tokenizer", preTokenizer},
        {"post_processor", byteLevel},
        {"decoder", byteLevel},
        {"model",
         {{"type", "BPE"},
          {"merges", mergeList},
          {"byte_fallback", false},
          {"ignore_merges", split.ignoreMerges}}}};
    addVocabulary(v, doc);
    addSpecialTokens(file, v, split.addBos, false, std::nullopt, std::nullopt, doc);
    return doc;
}

// tokenizer.ggml.model = "llama": a SentencePiece vocabulary (pieces, scores, token types),
// which llama.cpp tokenizes as SentencePiece does: spaces become "▁" (and one is put in front
// where add_space_prefix says, by default), then the adjacent pair whose concatenation is the
// highest-scoring piece merges first; a character no piece has becomes its UTF-8 bytes' <0xXX>
// pieces. As a BPE model that is: every split of a piece into two pieces is a merge, ranked by
// the whole piece's score (Hugging Face converts such GGUF vocabularies the same way).
nlohmann::json sentencePieceBpe(const GgufFile& file) {
    const GgufVocabulary v = readVocabulary(file);
    const GgufArray* scores = file.array("tokenizer.ggml.scores");
    if (!scores)
        throw Error("tokenizer.ggml.scores is missing: a SentencePiece vocabulary merges by them");
    if (scores->size() != v.size())
        throw Error("tokenizer.ggml.scores lists " + std::to_string(scores->size()) +
                    " tokens, tokenizer.ggml.tokens " + std::to_string(v.size()));
    std::unordered_map<std::string_view, std::size_t> idOf;
    for (std::size_t id = 0; id < v.size(); ++id) idOf.emplace(v.piece(id), id);
    struct Merge {
        double score;
        std::size_t piece, split;  // the piece and the byte where its left part ends
    };
    std::vector<Merge> found;
    for (std::size_t id = 0; id < v.size(); ++id) {
        const std::string& piece = v.piece(id);
        const auto* score = std::get_if<double>(&(*scores)[id].value);
        if (!score) throw Error("tokenizer.ggml.scores holds a value that is not a number");
        const std::string_view whole(piece);
        for (std::size_t at = nextCharacter(whole, 0); at < whole.size();
             at = nextCharacter(whole, at)) {
            if (idOf.contains(whole.substr(0, at)) && idOf.contains(whole.substr(at)))
                found.push_back({*score, id, at});
        }
    }
    std::stable_sort(found.begin(), found.end(),
                     [](const Merge& a, const Merge& b) { return a.score > b.score; });
    nlohmann::json merges = nlohmann::json::array();
    for (const Merge& m : found) {
        const std::string& piece = v.piece(m.piece);
        merges.push_back({piece.substr(0, m.split), piece.substr(m.split)});
    }
    const auto unknown = specialPiece(file, v, "unknown", 0);
    nlohmann::json space = {
        {"type", "Replace"}, {"pattern", {{"String", " "}}}, {"content", "\u2581"}};
    nlohmann::json normalizer = space;
    if (file.boolean("tokenizer.ggml.add_space_prefix").value_or(true))
        normalizer = {{"type", "Sequence"},
                      {"normalizers", {{{"type", "Prepend"}, {"prepend", "\u2581"}}, space}}};
    nlohmann::json doc = {{"normalizer", normalizer},
                          {"pre_tokenizer", nullptr},
                          {"post_processor", nullptr},
                          {"model",
                           {{"type", "BPE"},
                            {"merges", merges},
                            {"unk_token", *unknown},
                            {"fuse_unk", true},
                            {"byte_fallback", true}}}};
    addVocabulary(v, doc);
    addSpecialTokens(file, v, true, false, 1, 2, doc);
    return doc;
}

}  // namespace

std::unique_ptr<Tokenizer> ggufTokenizer(const GgufFile& file) {
    const auto model = file.string("tokenizer.ggml.model");
    if (!model) throw Error("the file has no tokenizer (tokenizer.ggml.model)");
    // Kinds of tokenizer, named after the models that brought them.
    const std::string byteLevel = "gpt2", sentencePiece = "llama";
    if (*model != byteLevel && *model != sentencePiece)
        throw Error("GGUF tokenizers of kind \"" + *model +
                    "\" (tokenizer.ggml.model) are not read yet; byte-level BPE (\"gpt2\") and "
                    "SentencePiece (\"llama\") are");
    const nlohmann::json doc = *model == byteLevel ? byteLevelBpe(file) : sentencePieceBpe(file);
    return std::make_unique<JsonBpeTokenizer>(doc, file.path().string() + " (tokenizer.ggml.*)");
}

}  // namespace qkv
