#pragma once
// GPT-2's byte-level alphabet: every byte 0..255 stands for one printable Unicode character
// (bytes_to_unicode in OpenAI's encoder.py: printable Latin-1 bytes map to themselves, the others
// to U+0100 onwards, e.g. ' ' -> 'Ġ' U+0120, '\n' -> 'Ċ' U+010A), so BPE runs on text that
// contains no spaces or control characters, and every byte sequence is representable.
#include <optional>
#include <string>
#include <string_view>

namespace qkv::byte_level {

// GPT-2's pre-tokenizer pattern
//   's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
// with \s spelled out as the White_Space property, which is what Python's regex module (GPT-2,
// transformers) and Oniguruma (tokenizers) match; PCRE2's own \s also takes U+180E.
extern const std::string_view kGpt2Pattern;

// The UTF-8 of the character standing for `byte`.
const std::string& charOf(unsigned char byte);

// The raw bytes a byte-level piece stands for; nullopt when it has a character outside the
// alphabet (as added tokens may).
std::optional<std::string> decode(std::string_view piece);

}  // namespace qkv::byte_level
