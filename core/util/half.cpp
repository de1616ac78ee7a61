#include "core/util/half.h"

namespace qkv {

std::uint16_t floatToBf16(float f) {
    std::uint32_t bits;
    std::memcpy(&bits, &f, sizeof bits);
    if ((bits & 0x7FFFFFFFu) > 0x7F800000u) return static_cast<std::uint16_t>((bits >> 16) | 0x40u);
    std::uint32_t rounding = 0x7FFFu + ((bits >> 16) & 1u);
    return static_cast<std::uint16_t>((bits + rounding) >> 16);
}

std::uint16_t floatToF16(float f) {
    std::uint32_t bits;
    std::memcpy(&bits, &f, sizeof bits);
    std::uint32_t sign = (bits >> 16) & 0x8000u;
    std::uint32_t absBits = bits & 0x7FFFFFFFu;
    if (absBits > 0x7F800000u) return static_cast<std::uint16_t>(sign | 0x7E00u);   // NaN
    if (absBits >= 0x477FF000u) return static_cast<std::uint16_t>(sign | 0x7C00u);  // overflow
    if (absBits < 0x38800000u) {
        // Result is subnormal or zero: shift with round-to-nearest-even.
        if (absBits < 0x33000000u) return static_cast<std::uint16_t>(sign);
        std::uint32_t exponent = absBits >> 23;
        std::uint32_t mantissa = (absBits & 0x7FFFFFu) | 0x800000u;
        std::uint32_t shift = 126 - exponent;  // 14..24
        std::uint32_t half = mantissa >> shift;
        std::uint32_t rest = mantissa & ((1u << shift) - 1u);
        std::uint32_t midpoint = 1u << (shift - 1);
        if (rest > midpoint || (rest == midpoint && (half & 1u))) ++half;
        return static_cast<std::uint16_t>(sign | half);
    }
    std::uint32_t rounded = absBits + 0xFFFu + ((absBits >> 13) & 1u);
    return static_cast<std::uint16_t>(sign | ((rounded - 0x38000000u) >> 13));
}

}  // namespace qkv
