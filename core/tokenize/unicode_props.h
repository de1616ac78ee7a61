#pragma once
// Unicode character properties the tokenizers need beyond what PCRE2 gives (utf8proc tables).
#include <string>

namespace qkv::unicode {

// The White_Space property (what Python's regex module and Rust's char::is_whitespace use).
bool isWhiteSpace(char32_t cp);
// A "word" character in the sense of regex \w: letters, marks, decimal digits, connectors.
bool isWordChar(char32_t cp);
// General category starts with 'P'.
bool isPunctuationCategory(char32_t cp);
// General category starts with 'C' (Cc, Cf, Cs, Co, Cn).
bool isOtherCategory(char32_t cp);
bool isNonspacingMark(char32_t cp);  // Mn
bool isSpaceSeparator(char32_t cp);  // Zs
bool isNumeric(char32_t cp);         // Nd, Nl, No (Rust's char::is_numeric)

// Appends the full lower-case mapping of `cp` as UTF-8 (Python str.lower / Rust to_lowercase
// per character: U+0130 'İ' becomes "i\u0307", everything else the simple mapping).
void appendLowercase(std::string& out, char32_t cp);

}  // namespace qkv::unicode
