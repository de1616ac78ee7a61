#pragma once
// IEEE half and bfloat16 to float32 conversion (bit-exact, subnormals and NaN included).
#include <cstdint>
#include <cstring>

namespace qkv {

inline float bf16ToFloat(std::uint16_t h) {
    std::uint32_t bits = static_cast<std::uint32_t>(h) << 16;
    float f;
    std::memcpy(&f, &bits, sizeof f);
    return f;
}

inline float f16ToFloat(std::uint16_t h) {
    std::uint32_t sign = static_cast<std::uint32_t>(h & 0x8000u) << 16;
    std::uint32_t exponent = (h >> 10) & 0x1Fu;
    std::uint32_t mantissa = h & 0x3FFu;
    std::uint32_t bits;
    if (exponent == 0x1F) {
        bits = sign | 0x7F800000u | (mantissa << 13);  // inf / NaN
    } else if (exponent != 0) {
        bits = sign | ((exponent + 112) << 23) | (mantissa << 13);
    } else if (mantissa == 0) {
        bits = sign;  // signed zero
    } else {
        // Subnormal: normalise the mantissa.
        int shift = 0;
        while ((mantissa & 0x400u) == 0) {
            mantissa <<= 1;
            ++shift;
        }
        mantissa &= 0x3FFu;
        bits = sign | (static_cast<std::uint32_t>(113 - shift) << 23) | (mantissa << 13);
    }
    float f;
    std::memcpy(&f, &bits, sizeof f);
    return f;
}

// Round-to-nearest-even float32 -> float16 / bfloat16, for writers and tests.
std::uint16_t floatToF16(float f);
std::uint16_t floatToBf16(float f);

}  // namespace qkv
