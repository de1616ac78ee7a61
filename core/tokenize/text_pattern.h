#pragma once
// The "pattern" of tokenizer.json Replace normalizers and Split pre-tokenizers:
// {"String": "literal"} or {"Regex": "pattern"}.
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/tokenize/regex.h"

namespace qkv {

class TextPattern {
  public:
    // Throws qkv::Error naming `where` for anything but the two forms above or a bad regex.
    TextPattern(const nlohmann::json& spec, const std::string& where);

    // Non-overlapping matches from left to right; an empty literal matches nothing.
    std::vector<std::pair<std::size_t, std::size_t>> findAll(std::string_view text) const;

  private:
    std::string m_literal;
    std::optional<Regex> m_regex;
};

}  // namespace qkv
