#include "core/tokenize/text_pattern.h"

#include <nlohmann/json.hpp>

#include "core/tokenize/json_file.h"

namespace qkv {

TextPattern::TextPattern(const nlohmann::json& spec, const std::string& where) {
    if (const nlohmann::json* literal = json::find(spec, "String", where)) {
        m_literal = json::asString(*literal, where + ".String");
    } else if (const nlohmann::json* regex = json::find(spec, "Regex", where)) {
        m_regex.emplace(json::asString(*regex, where + ".Regex"), where);
    } else {
        json::fail(where, "expected {\"String\": ...} or {\"Regex\": ...}");
    }
}

std::vector<std::pair<std::size_t, std::size_t>> TextPattern::findAll(std::string_view text) const {
    if (m_regex) return m_regex->findAll(text);
    std::vector<std::pair<std::size_t, std::size_t>> matches;
    if (m_literal.empty()) return matches;
    for (std::size_t pos = text.find(m_literal); pos != std::string_view::npos;
         pos = text.find(m_literal, pos + m_literal.size()))
        matches.emplace_back(pos, pos + m_literal.size());
    return matches;
}

}  // namespace qkv
