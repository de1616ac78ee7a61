#include "core/format/fp8.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

namespace qkv {
namespace {

const std::array<float, 256>& e4m3Table() {
    static const std::array<float, 256> table = [] {
        std::array<float, 256> t{};
        for (int code = 0; code < 256; ++code) {
            const int exponent = (code >> 3) & 0x0F, mantissa = code & 0x07;
            float magnitude;
            if (exponent == 0x0F && mantissa == 0x07)
                magnitude = std::numeric_limits<float>::quiet_NaN();
            else if (exponent == 0)  // subnormal: m · 2^-9
                magnitude = std::ldexp(static_cast<float>(mantissa), -9);
            else
                magnitude = std::ldexp(1.0f + static_cast<float>(mantissa) / 8.0f, exponent - 7);
            t[code] = code & 0x80 ? -magnitude : magnitude;
        }
        return t;
    }();
    return table;
}

}  // namespace

float e4m3ToFloat(std::uint8_t code) { return e4m3Table()[code]; }

void decodeFp8Blocks(const std::uint8_t* codes, const float* scales, std::int64_t storedCols,
                     std::size_t first, std::size_t count, float* out) {
    const float* table = e4m3Table().data();
    const auto cols = static_cast<std::size_t>(storedCols);
    const auto scaleCols = static_cast<std::size_t>(fp8ScaleCols(storedCols));
    const auto side = static_cast<std::size_t>(kFp8BlockSide);
    std::size_t i = first;
    const std::size_t end = first + count;
    while (i < end) {  // a run at a time within one block of one row: one scale
        const std::size_t row = i / cols, col = i % cols;
        const std::size_t runEnd = std::min({end, i + (side - col % side), i + (cols - col)});
        const float scale = scales[row / side * scaleCols + col / side];
        for (; i < runEnd; ++i) *out++ = table[codes[i]] * scale;
    }
}

}  // namespace qkv
