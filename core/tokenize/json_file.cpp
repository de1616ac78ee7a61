#include "core/tokenize/json_file.h"

#include <limits>
#include <nlohmann/json.hpp>

#include "core/util/error.h"
#include "core/util/mapped_file.h"

namespace qkv::json {

nlohmann::json readFile(const std::filesystem::path& path) {
    const MappedFile file(path);
    try {
        return nlohmann::json::parse(file.data(), file.data() + file.size());
    } catch (const nlohmann::json::exception& e) {
        throw Error(path.string() + ": invalid JSON: " + e.what());
    }
}

nlohmann::json readOptionalObject(const std::filesystem::path& path) {
    std::error_code ec;
    if (!std::filesystem::exists(path, ec)) return nlohmann::json::object();
    nlohmann::json doc = readFile(path);
    if (!doc.is_object()) fail(path.string(), "expected a JSON object");
    return doc;
}

void fail(const std::string& where, const std::string& problem) {
    throw Error(where + ": " + problem);
}

std::string member(const std::string& where, const std::string& key) {
    return where + (where.find(": ") == std::string::npos ? ": " : ".") + key;
}

const nlohmann::json* find(const nlohmann::json& object, const char* key,
                           const std::string& where) {
    if (!object.is_object()) fail(where, "expected an object");
    const auto it = object.find(key);
    if (it == object.end() || it->is_null()) return nullptr;
    return &*it;
}

const nlohmann::json& require(const nlohmann::json& object, const char* key,
                              const std::string& where) {
    const nlohmann::json* value = find(object, key, where);
    if (!value) fail(where, std::string("missing \"") + key + "\"");
    return *value;
}

std::string asString(const nlohmann::json& value, const std::string& where) {
    if (!value.is_string()) fail(where, "expected a string");
    return value.get<std::string>();
}

bool asBool(const nlohmann::json& value, const std::string& where) {
    if (!value.is_boolean()) fail(where, "expected true or false");
    return value.get<bool>();
}

int asInt(const nlohmann::json& value, const std::string& where) {
    if (value.is_number_unsigned()) {
        if (value.get<std::uint64_t>() <=
            static_cast<std::uint64_t>(std::numeric_limits<int>::max()))
            return static_cast<int>(value.get<std::uint64_t>());
    } else if (value.is_number_integer()) {
        const auto v = value.get<std::int64_t>();
        if (v >= std::numeric_limits<int>::min() && v <= std::numeric_limits<int>::max())
            return static_cast<int>(v);
    } else {
        fail(where, "expected an integer");
    }
    fail(where, "integer " + value.dump() + " out of range");
}

bool boolOr(const nlohmann::json& object, const char* key, bool fallback,
            const std::string& where) {
    const nlohmann::json* value = find(object, key, where);
    return value ? asBool(*value, member(where, key)) : fallback;
}

std::string tokenOr(const nlohmann::json& object, const char* key, const std::string& fallback,
                    const std::string& where) {
    const nlohmann::json* value = find(object, key, where);
    if (!value) return fallback;
    const std::string field = member(where, key);
    if (value->is_object()) return asString(require(*value, "content", field), field);
    return asString(*value, field);
}

std::string stringOr(const nlohmann::json& object, const char* key, const std::string& fallback,
                     const std::string& where) {
    const nlohmann::json* value = find(object, key, where);
    return value ? asString(*value, member(where, key)) : fallback;
}

}  // namespace qkv::json
