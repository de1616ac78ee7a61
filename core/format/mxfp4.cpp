#include "core/format/mxfp4.h"

#include <algorithm>
#include <cstring>
#include <limits>

#include "core/format/block_registers.h"

namespace qkv {
namespace {

int nibble(const std::uint8_t* blocks, std::size_t index) {
    const std::uint8_t byte = blocks[index / 2];
    return index % 2 == 0 ? byte & 0x0F : byte >> 4;
}

}  // namespace

float mxfp4Scale(std::uint8_t scale) {
    if (scale == 0xFF) return std::numeric_limits<float>::quiet_NaN();
    // 2^(s-127) is float32's exponent field s for s >= 1; s = 0 is the subnormal 2^-127.
    const std::uint32_t bits = scale == 0 ? 0x00400000u : static_cast<std::uint32_t>(scale) << 23;
    float f;
    std::memcpy(&f, &bits, sizeof f);
    return f;
}

float mxfp4At(const std::uint8_t* blocks, const std::uint8_t* scales, std::ptrdiff_t index) {
    const auto i = static_cast<std::size_t>(index);
    return kMxfp4Codes[nibble(blocks, i)] * mxfp4Scale(scales[i / kMxfp4BlockElements]);
}

namespace {

#if defined(__AVX512F__)
// One whole block, 16 bytes to 32 floats: the two halves interleave back into element order
// (low nibble first).
void decodeWholeBlock(const std::uint8_t* bytes, float scale, float* out) {
    const BlockHalves halves = decodeMxfp4Halves(
        bytes, _mm512_mul_ps(_mm512_loadu_ps(kMxfp4Codes), _mm512_set1_ps(scale)));
    const __m512i first = _mm512_setr_epi32(0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23);
    const __m512i second =
        _mm512_setr_epi32(8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31);
    _mm512_storeu_ps(out, _mm512_permutex2var_ps(halves.low, first, halves.high));
    _mm512_storeu_ps(out + 16, _mm512_permutex2var_ps(halves.low, second, halves.high));
}
#else
void decodeWholeBlock(const std::uint8_t* bytes, float scale, float* out) {
    for (std::size_t b = 0; b < kMxfp4BlockElements / 2; ++b) {
        out[2 * b] = kMxfp4Codes[bytes[b] & 0x0F] * scale;
        out[2 * b + 1] = kMxfp4Codes[bytes[b] >> 4] * scale;
    }
}
#endif

}  // namespace

void decodeMxfp4(const std::uint8_t* blocks, const std::uint8_t* scales, std::size_t first,
                 std::size_t count, float* out) {
    std::size_t i = first;
    const std::size_t end = first + count;
    while (i < end) {
        const std::size_t block = i / kMxfp4BlockElements;
        const float scale = mxfp4Scale(scales[block]);
        const std::size_t blockEnd = std::min(end, (block + 1) * kMxfp4BlockElements);
        if (i % kMxfp4BlockElements == 0 && blockEnd - i == kMxfp4BlockElements) {
            decodeWholeBlock(blocks + i / 2, scale, out);
            out += kMxfp4BlockElements;
            i = blockEnd;
            continue;
        }
        for (; i < blockEnd; ++i)
            *out++ = kMxfp4Codes[nibble(blocks, i)] * scale;  // a partial block
    }
}

}  // namespace qkv
