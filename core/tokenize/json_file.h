#pragma once
// Reading the tokenizer's JSON files with errors a user can act on: every problem names the file
// and the field ("tokenizer.json: model.vocab: expected an object").
#include <filesystem>
#include <nlohmann/json_fwd.hpp>
#include <string>

namespace qkv::json {

// Nesting allowed for Sequence normalizers, pre-tokenizers and post-processors: real files use
// one or two levels; a limit keeps a hostile file from exhausting the stack.
constexpr int kMaxNesting = 32;

// Parses a whole file; throws qkv::Error "<file>: cannot read" or "<file>: invalid JSON: ...".
nlohmann::json readFile(const std::filesystem::path& path);
// A JSON object file that may be absent (tokenizer_config.json, config.json): {} when it is.
nlohmann::json readOptionalObject(const std::filesystem::path& path);

[[noreturn]] void fail(const std::string& where, const std::string& problem);
// Names member `key` of `where`: "<file>: key" at the top level, else "<where>.key".
std::string member(const std::string& where, const std::string& key);

// `where` names the value being read, e.g. "tokenizer.json: model".
// The member `key` of an object; nullptr when it is absent or null.
const nlohmann::json* find(const nlohmann::json& object, const char* key, const std::string& where);
// The member `key`, which must be present and not null.
const nlohmann::json& require(const nlohmann::json& object, const char* key,
                              const std::string& where);

std::string asString(const nlohmann::json& value, const std::string& where);
bool asBool(const nlohmann::json& value, const std::string& where);
int asInt(const nlohmann::json& value, const std::string& where);  // fits in int

// Optional members with a default for absent or null.
bool boolOr(const nlohmann::json& object, const char* key, bool fallback, const std::string& where);
// A special token of tokenizer_config.json: a string or an AddedToken {"content": "...", ...}.
std::string tokenOr(const nlohmann::json& object, const char* key, const std::string& fallback,
                    const std::string& where);
std::string stringOr(const nlohmann::json& object, const char* key, const std::string& fallback,
                     const std::string& where);

}  // namespace qkv::json
