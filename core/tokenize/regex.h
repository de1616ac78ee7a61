#pragma once
// A compiled PCRE2 pattern with Unicode semantics (PCRE2_UTF | PCRE2_UCP), for pre-tokenizer
// patterns such as GPT-2's. Compiled once per tokenizer and shared read-only by all encodes.
#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace qkv {

class Regex {
  public:
    // Throws qkv::Error "<context>: invalid regular expression ..." when the pattern does not
    // compile.
    Regex(std::string_view pattern, std::string_view context);
    ~Regex();
    Regex(Regex&&) noexcept;
    Regex& operator=(Regex&&) noexcept;

    // The non-overlapping matches [begin, end) in `text` from left to right. After an empty
    // match the search resumes one character later (the find_iter semantics of Hugging Face's
    // tokenizers). `text` must be valid UTF-8 (it is not checked again). Throws qkv::Error if
    // PCRE2 gives up (match or depth limit).
    std::vector<std::pair<std::size_t, std::size_t>> findAll(std::string_view text) const;

  private:
    struct Code;
    std::string m_pattern;
    std::string m_context;
    std::unique_ptr<Code> m_code;
};

}  // namespace qkv
