#include "core/tokenize/post_processors.h"

#include <nlohmann/json.hpp>

#include "core/tokenize/json_file.h"

namespace qkv {

PostProcessor::PostProcessor(const nlohmann::json& spec, const std::string& where,
                             const PieceLookup& pieceOf) {
    parse(spec, where, pieceOf, 0);
}

void PostProcessor::parse(const nlohmann::json& spec, const std::string& where,
                          const PieceLookup& pieceOf, int depth) {
    if (spec.is_null()) return;
    if (depth > json::kMaxNesting) json::fail(where, "nested too deeply");
    const std::string type = json::asString(json::require(spec, "type", where), where + ".type");
    if (type == "Sequence") {
        const nlohmann::json& list = json::require(spec, "processors", where);
        if (!list.is_array()) json::fail(where + ".processors", "expected an array");
        for (std::size_t i = 0; i < list.size(); ++i)
            parse(list[i], where + ".processors[" + std::to_string(i) + "]", pieceOf, depth + 1);
    } else if (type == "ByteLevel") {
        // Only trims offsets in Hugging Face; our spans are computed independently.
    } else if (type == "RobertaProcessing" || type == "BertProcessing") {
        std::vector<Part> parts;
        for (const char* key : {"cls", "sep"}) {
            const std::string field = where + "." + key;
            const nlohmann::json& pair = json::require(spec, key, where);
            if (!pair.is_array() || pair.size() != 2) json::fail(field, "expected [\"token\", id]");
            const int id = json::asInt(pair[1], field);
            Part part;
            part.tokens.push_back({id, pieceOf(id, field), 0, 0, true});
            parts.push_back(std::move(part));
            if (parts.size() == 1) parts.push_back(Part{true, {}});
        }
        m_steps.push_back(std::move(parts));
    } else if (type == "TemplateProcessing") {
        const nlohmann::json& single = json::require(spec, "single", where);
        const std::string singleWhere = where + ".single";
        if (!single.is_array()) json::fail(singleWhere, "expected an array");
        const nlohmann::json* table = json::find(spec, "special_tokens", where);
        std::vector<Part> parts;
        for (std::size_t i = 0; i < single.size(); ++i) {
            const std::string item = singleWhere + "[" + std::to_string(i) + "]";
            if (const nlohmann::json* sequence = json::find(single[i], "Sequence", item)) {
                const std::string name =
                    json::asString(json::require(*sequence, "id", item), item + ".Sequence.id");
                if (name != "A")
                    json::fail(item, "a single-sequence template names sequence '" + name + "'");
                parts.push_back(Part{true, {}});
                continue;
            }
            const nlohmann::json& token = json::require(single[i], "SpecialToken", item);
            const std::string name =
                json::asString(json::require(token, "id", item), item + ".SpecialToken.id");
            const nlohmann::json* entry = table ? json::find(*table, name.c_str(), where) : nullptr;
            if (!entry) json::fail(item, "special token '" + name + "' is not in special_tokens");
            const std::string entryWhere = where + ".special_tokens." + name;
            const nlohmann::json& ids = json::require(*entry, "ids", entryWhere);
            if (!ids.is_array()) json::fail(entryWhere + ".ids", "expected an array");
            Part part;
            for (const nlohmann::json& value : ids) {
                const int id = json::asInt(value, entryWhere + ".ids");
                part.tokens.push_back({id, pieceOf(id, entryWhere + ".ids"), 0, 0, true});
            }
            parts.push_back(std::move(part));
        }
        m_steps.push_back(std::move(parts));
    } else {
        json::fail(where, "post-processor type '" + type + "' is not supported");
    }
}

void PostProcessor::apply(std::vector<Token>& tokens, std::size_t textSize) const {
    for (const std::vector<Part>& parts : m_steps) {
        std::vector<Token> out;
        std::size_t at = 0;  // specials before the sequence sit at 0, after it at textSize
        for (const Part& part : parts) {
            if (part.sequence) {
                out.insert(out.end(), tokens.begin(), tokens.end());
                at = textSize;
                continue;
            }
            for (Token t : part.tokens) {
                t.begin = t.end = at;
                out.push_back(std::move(t));
            }
        }
        tokens = std::move(out);
    }
}

}  // namespace qkv
