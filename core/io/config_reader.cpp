#include "core/io/config_reader.h"

#include <cmath>
#include <cstdlib>
#include <limits>
#include <optional>

#include "core/util/error.h"

namespace qkv {

const nlohmann::json* ConfigReader::find(const char* key) const {
    auto it = m_doc->find(key);
    return it == m_doc->end() || it->is_null() ? nullptr : &*it;
}

void ConfigReader::fail(const std::string& message) const { throw Error(m_where + ": " + message); }

bool ConfigReader::has(const char* key) const { return find(key) != nullptr; }

int ConfigReader::positiveInt(const char* key, std::int64_t limit) const {
    const nlohmann::json* v = find(key);
    if (!v) fail(std::string("missing \"") + key + "\"");
    if (!v->is_number_integer() || v->get<std::int64_t>() <= 0)
        fail(std::string("\"") + key + "\" must be a positive integer");
    if (v->get<std::int64_t>() > limit)
        fail(std::string("\"") + key + "\" = " + v->dump() + " exceeds " + std::to_string(limit) +
             ", the largest QKV Lab supports");
    return v->get<int>();
}

int ConfigReader::positiveIntOr(const char* key, int fallback) const {
    return has(key) ? positiveInt(key) : fallback;
}

int ConfigReader::nonNegativeIntOr(const char* key, int fallback) const {
    const nlohmann::json* v = find(key);
    if (!v) return fallback;
    if (!v->is_number_integer() || v->get<std::int64_t>() < 0 || v->get<std::int64_t>() > kMaxCount)
        fail(std::string("\"") + key + "\" must be a non-negative integer");
    return v->get<int>();
}

int ConfigReader::widthOr(const char* key, int fallback) const {
    return has(key) ? width(key) : fallback;
}

float ConfigReader::number(const char* key) const {
    const nlohmann::json* v = find(key);
    if (!v) fail(std::string("missing \"") + key + "\"");
    const double value = v->is_number() ? v->get<double>() : -1.0;
    if (!(value >= 0.0 && value <= std::numeric_limits<float>::max()))
        fail(std::string("\"") + key + "\" must be a non-negative number");
    return static_cast<float>(value);
}

float ConfigReader::numberOr(const char* key, float fallback) const {
    return has(key) ? number(key) : fallback;
}

bool ConfigReader::boolOr(const char* key, bool fallback) const {
    const nlohmann::json* v = find(key);
    if (!v) return fallback;
    if (!v->is_boolean()) fail(std::string("\"") + key + "\" must be true or false");
    return v->get<bool>();
}

bool ConfigReader::truthOr(const char* key, bool fallback) const {
    const nlohmann::json* v = find(key);
    if (!v) return fallback;
    if (v->is_number()) return v->get<double>() != 0.0;
    if (!v->is_boolean()) fail(std::string("\"") + key + "\" must be true, false or a number");
    return v->get<bool>();
}

std::string ConfigReader::stringOr(const char* key, const std::string& fallback) const {
    const nlohmann::json* v = find(key);
    if (!v) return fallback;
    if (!v->is_string()) fail(std::string("\"") + key + "\" must be a string");
    return v->get<std::string>();
}

std::optional<ConfigReader> ConfigReader::object(const char* key) const {
    const nlohmann::json* v = find(key);
    if (!v) return std::nullopt;
    if (!v->is_object()) fail(std::string("\"") + key + "\" must be an object");
    return ConfigReader(*v, m_where + ": \"" + key + "\"");
}

namespace {

// The elements of a JSON list that `accepts`; throws through `reader` naming the key otherwise.
template <typename T, typename Accepts>
std::vector<T> listOf(const ConfigReader& reader, const nlohmann::json* v, const char* key,
                      const char* what, Accepts accepts) {
    if (!v) reader.fail(std::string("missing \"") + key + "\"");
    if (!v->is_array()) reader.fail(std::string("\"") + key + "\" must be a list of " + what);
    if (v->size() > static_cast<std::size_t>(ConfigReader::kMaxWidth))
        reader.fail(std::string("\"") + key + "\" is too long");
    std::vector<T> out;
    for (const nlohmann::json& e : *v) {
        if (!accepts(e)) reader.fail(std::string("\"") + key + "\" must be a list of " + what);
        out.push_back(e.get<T>());
    }
    return out;
}

}  // namespace

bool ConfigReader::isList(const char* key) const {
    const nlohmann::json* v = find(key);
    return v && v->is_array();
}

std::vector<double> ConfigReader::numbers(const char* key) const {
    return listOf<double>(*this, find(key), key, "numbers", [](const nlohmann::json& e) {
        return e.is_number() && std::isfinite(e.get<double>());
    });
}

std::vector<double> ConfigReader::extendedNumbers(const char* key) const {
    auto value = [](const nlohmann::json& e) -> std::optional<double> {
        if (e.is_number()) return e.get<double>();
        if (!e.is_object() || e.size() != 1 || !e.contains("__float__") ||
            !e.at("__float__").is_string())
            return std::nullopt;
        const std::string spelled = e.at("__float__").get<std::string>();
        if (spelled == "Infinity") return std::numeric_limits<double>::infinity();
        if (spelled == "-Infinity") return -std::numeric_limits<double>::infinity();
        return std::nullopt;  // NaN is no bound
    };
    const nlohmann::json* list = find(key);
    if (!list) fail("missing \"" + std::string(key) + "\"");
    if (!list->is_array()) fail("\"" + std::string(key) + "\" must be a list of numbers");
    std::vector<double> out;
    for (const nlohmann::json& e : *list) {
        const std::optional<double> v = value(e);
        if (!v) fail("\"" + std::string(key) + "\" must be a list of numbers (or Infinity)");
        out.push_back(*v);
    }
    return out;
}

std::string withNonFiniteFloatsSpelled(const std::string& text) {
    std::string out;
    out.reserve(text.size());
    bool inString = false;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char ch = text[i];
        if (inString) {
            out += ch;
            if (ch == '\\' && i + 1 < text.size())
                out += text[++i];
            else if (ch == '"')
                inString = false;
            continue;
        }
        if (ch == '"') inString = true;
        bool replaced = false;
        for (const char* token : {"-Infinity", "Infinity", "NaN"}) {
            const std::size_t length = std::char_traits<char>::length(token);
            if (text.compare(i, length, token) == 0) {
                out += std::string("{\"__float__\": \"") + token + "\"}";
                i += length - 1;
                replaced = true;
                break;
            }
        }
        if (!replaced) out += ch;
    }
    return out;
}

std::vector<int> ConfigReader::integers(const char* key) const {
    return listOf<int>(*this, find(key), key, "integers", [](const nlohmann::json& e) {
        return e.is_number_integer() && std::llabs(e.get<std::int64_t>()) <= kMaxCount;
    });
}

std::vector<std::string> ConfigReader::strings(const char* key) const {
    return listOf<std::string>(*this, find(key), key, "strings",
                               [](const nlohmann::json& e) { return e.is_string(); });
}

void ConfigReader::requireNull(const char* key, const std::string& what) const {
    if (has(key)) fail(std::string("\"") + key + "\" is set: " + what + " is not supported");
}

}  // namespace qkv
