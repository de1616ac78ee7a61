#include "core/tokenize/unicode_props.h"

#include <utf8proc.h>

#include "core/tokenize/utf8.h"

namespace qkv::unicode {
namespace {

utf8proc_category_t category(char32_t cp) {
    return utf8proc_category(static_cast<utf8proc_int32_t>(cp));
}

}  // namespace

bool isWhiteSpace(char32_t cp) {
    // PropList.txt White_Space; PCRE2's \s would also take U+180E, which left it in Unicode 6.3.
    return (cp >= 0x09 && cp <= 0x0D) || cp == 0x20 || cp == 0x85 || cp == 0xA0 || cp == 0x1680 ||
           (cp >= 0x2000 && cp <= 0x200A) || cp == 0x2028 || cp == 0x2029 || cp == 0x202F ||
           cp == 0x205F || cp == 0x3000;
}

bool isWordChar(char32_t cp) {
    switch (category(cp)) {
        case UTF8PROC_CATEGORY_LU:
        case UTF8PROC_CATEGORY_LL:
        case UTF8PROC_CATEGORY_LT:
        case UTF8PROC_CATEGORY_LM:
        case UTF8PROC_CATEGORY_LO:
        case UTF8PROC_CATEGORY_MN:
        case UTF8PROC_CATEGORY_MC:
        case UTF8PROC_CATEGORY_ME:
        case UTF8PROC_CATEGORY_ND:
        case UTF8PROC_CATEGORY_NL:
        case UTF8PROC_CATEGORY_PC:
            return true;
        default:
            return false;
    }
}

bool isPunctuationCategory(char32_t cp) {
    const auto c = category(cp);
    return c >= UTF8PROC_CATEGORY_PC && c <= UTF8PROC_CATEGORY_PO;
}

bool isOtherCategory(char32_t cp) {
    const auto c = category(cp);
    return c == UTF8PROC_CATEGORY_CN || (c >= UTF8PROC_CATEGORY_CC && c <= UTF8PROC_CATEGORY_CO);
}

bool isNonspacingMark(char32_t cp) { return category(cp) == UTF8PROC_CATEGORY_MN; }
bool isSpaceSeparator(char32_t cp) { return category(cp) == UTF8PROC_CATEGORY_ZS; }

bool isNumeric(char32_t cp) {
    const auto c = category(cp);
    return c == UTF8PROC_CATEGORY_ND || c == UTF8PROC_CATEGORY_NL || c == UTF8PROC_CATEGORY_NO;
}

void appendLowercase(std::string& out, char32_t cp) {
    if (cp == 0x130) {  // the one unconditional multi-character lower-case mapping
        out += 'i';
        utf8::append(out, 0x307);
        return;
    }
    utf8::append(out, static_cast<char32_t>(utf8proc_tolower(static_cast<utf8proc_int32_t>(cp))));
}

}  // namespace qkv::unicode
