#pragma once
// Reading the process environment: an unset and an empty variable are the same (nullopt).
#include <cstdlib>
#include <optional>
#include <string>

namespace qkv {

inline std::optional<std::string> environmentVariable(const char* name) {
    const char* value = std::getenv(name);
    if (!value || !*value) return std::nullopt;
    return std::string(value);
}

}  // namespace qkv
