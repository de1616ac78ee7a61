#include "core/tokenize/llama_post_processor.h"

#include <nlohmann/json.hpp>
#include <system_error>

#include "core/tokenize/json_file.h"

namespace qkv {
namespace {

// A special token of tokenizer_config.json: a string, or an AddedToken object's "content".
std::string tokenContent(const nlohmann::json& config, const char* key, const std::string& where) {
    const nlohmann::json* value = json::find(config, key, where);
    if (!value) json::fail(where, std::string("asks for \"") + key + "\" but names none");
    if (value->is_object())
        return json::asString(json::require(*value, "content", where), where + "." + key);
    return json::asString(*value, where + "." + key);
}

// The token's id: an added token's, else the BPE vocabulary's.
int tokenId(const nlohmann::json& tokenizer, const std::string& content, const std::string& where) {
    if (const auto added = tokenizer.find("added_tokens");
        added != tokenizer.end() && added->is_array())
        for (const nlohmann::json& t : *added)
            if (t.is_object() && t.value("content", std::string()) == content && t.contains("id") &&
                t["id"].is_number_integer())
                return t["id"].get<int>();
    const auto model = tokenizer.find("model");
    if (model != tokenizer.end() && model->is_object()) {
        const auto vocab = model->find("vocab");
        if (vocab != model->end() && vocab->is_object()) {
            const auto it = vocab->find(content);
            if (it != vocab->end() && it->is_number_integer()) return it->get<int>();
        }
    }
    json::fail(where, "special token '" + content + "' is not in the tokenizer's vocabulary");
}

}  // namespace

void applyLlamaPostProcessor(nlohmann::json& tokenizerJson, const std::filesystem::path& folder) {
    const std::filesystem::path file = folder / "tokenizer_config.json";
    std::error_code ec;
    if (!std::filesystem::is_regular_file(file, ec)) return;
    const nlohmann::json config = json::readFile(file);
    const std::string where = file.string();
    if (!config.is_object()) return;
    const std::string cls = json::stringOr(config, "tokenizer_class", "", where);
    if (cls != "LlamaTokenizerFast" && cls != "LlamaTokenizer") return;
    nlohmann::json single = nlohmann::json::array();
    nlohmann::json specials = nlohmann::json::object();
    auto special = [&](const char* key) {
        const std::string content = tokenContent(config, key, where);
        const int id = tokenId(tokenizerJson, content, where);
        single.push_back({{"SpecialToken", {{"id", content}, {"type_id", 0}}}});
        specials[content] = {{"id", content}, {"ids", {id}}, {"tokens", {content}}};
    };
    if (json::boolOr(config, "add_bos_token", true, where)) special("bos_token");
    single.push_back({{"Sequence", {{"id", "A"}, {"type_id", 0}}}});
    if (json::boolOr(config, "add_eos_token", false, where)) special("eos_token");
    tokenizerJson["post_processor"] = {
        {"type", "TemplateProcessing"}, {"single", single}, {"special_tokens", specials}};
}

}  // namespace qkv
