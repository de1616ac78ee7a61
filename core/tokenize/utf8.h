#pragma once
// UTF-8 helpers shared by the tokenizers. Input text is validated once, up front; the other
// functions assume valid UTF-8 unless they say otherwise.
#include <cstddef>
#include <string>
#include <string_view>

namespace qkv::utf8 {

// Throws qkv::Error "<what> is not valid UTF-8 (byte offset N)" naming the first bad byte.
// Overlong forms, surrogates and code points above U+10FFFF are invalid, as in Python.
void validate(std::string_view text, std::string_view what);

// Bytes in the sequence that starts with `lead`.
inline std::size_t sequenceLength(unsigned char lead) {
    return lead < 0x80 ? 1 : lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4;
}
inline bool isContinuation(unsigned char byte) { return (byte & 0xC0) == 0x80; }

// Decodes the character at `pos` and advances `pos` past it.
char32_t decode(std::string_view text, std::size_t& pos);
void append(std::string& out, char32_t cp);

// Shows bytes for display: valid characters are kept, each byte outside a valid sequence
// becomes "<0xXX>", so the result is always valid UTF-8.
std::string escapeInvalid(std::string_view bytes);

// Widens [begin, end) to whole characters, so that a span of a token holding part of a
// multi-byte character still selects displayable text.
void widenToCharacters(std::string_view text, std::size_t& begin, std::size_t& end);

}  // namespace qkv::utf8
