#include "core/format/ggml_blocks.h"

#include <algorithm>
#include <cstring>

#include "core/format/block_registers.h"
#include "core/util/half.h"

namespace qkv {
namespace {

constexpr std::size_t kSuper = 256;  // elements of a K-type (and IQ4_XS) block

// IQ4's sixteen non-linear levels.
constexpr std::int8_t kIq4Levels[16] = {-127, -104, -83, -65, -49, -35, -22, -10,
                                        1,    13,   25,  38,  53,  69,  89,  113};

// MXFP4's E2M1 codes, doubled: 0, 0.5, 1, 1.5, 2, 3, 4, 6 and their negatives.
constexpr std::int8_t kMxfp4Levels[16] = {0, 1, 2, 3, 4, 6, 8, 12, 0, -1, -2, -3, -4, -6, -8, -12};

// Half of the E8M0 scale 2^(e - 127), as ggml builds it: 2^(e - 128), subnormal for e < 2.
float halfE8m0(std::uint8_t e) {
    const std::uint32_t bits = e < 2 ? std::uint32_t{0x00200000} << e : std::uint32_t{e - 1u} << 23;
    float f;
    std::memcpy(&f, &bits, sizeof f);
    return f;
}

float half(const std::uint8_t* p) {
    std::uint16_t h;
    std::memcpy(&h, p, sizeof h);
    return f16ToFloat(h);
}

// A 32-element block's 4-bit code of element j: low nibbles hold elements 0-15, high 16-31.
int nibble32(const std::uint8_t* qs, int j) { return j < 16 ? qs[j] & 0xF : qs[j - 16] >> 4; }

// Q5's fifth bit of element j, from its little-endian 32-bit mask.
int fifthBit(const std::uint8_t* qh, int j) { return (qh[j / 8] >> (j % 8)) & 1; }

// Q4_K and Q5_K: eight 6-bit scales and mins packed in 12 bytes.
void scalesAndMins(const std::uint8_t* s, int scale[8], int min[8]) {
    for (int i = 0; i < 4; ++i) {
        scale[i] = s[i] & 0x3F;
        min[i] = s[i + 4] & 0x3F;
        scale[i + 4] = (s[i + 8] & 0xF) | ((s[i] >> 2) & 0x30);
        min[i + 4] = (s[i + 8] >> 4) | ((s[i + 4] >> 2) & 0x30);
    }
}

// One whole block of each type into out (its format's element count).
void decodeBlock(ElementType type, const std::uint8_t* b, float* out) {
    switch (type) {
        case ElementType::Q4_0: {
            const float d = half(b);
            for (int j = 0; j < 32; ++j) out[j] = d * static_cast<float>(nibble32(b + 2, j) - 8);
            return;
        }
        case ElementType::Q4_1: {
            const float d = half(b), m = half(b + 2);
            for (int j = 0; j < 32; ++j) out[j] = d * static_cast<float>(nibble32(b + 4, j)) + m;
            return;
        }
        case ElementType::Q5_0: {
            const float d = half(b);
            for (int j = 0; j < 32; ++j)
                out[j] =
                    d * static_cast<float>((nibble32(b + 6, j) | fifthBit(b + 2, j) << 4) - 16);
            return;
        }
        case ElementType::Q5_1: {
            const float d = half(b), m = half(b + 2);
            for (int j = 0; j < 32; ++j)
                out[j] = d * static_cast<float>(nibble32(b + 8, j) | fifthBit(b + 4, j) << 4) + m;
            return;
        }
        case ElementType::Q8_0: {
#if defined(__AVX512F__)
            const BlockHalves values = decodeQ8_0Halves(b);
            _mm512_storeu_ps(out, values.low);
            _mm512_storeu_ps(out + 16, values.high);
#else
            const float d = half(b);
            for (int j = 0; j < 32; ++j)
                out[j] = static_cast<float>(static_cast<std::int8_t>(b[2 + j])) * d;
#endif
            return;
        }
        case ElementType::IQ4_NL: {
            const float d = half(b);
            for (int j = 0; j < 32; ++j)
                out[j] = d * static_cast<float>(kIq4Levels[nibble32(b + 2, j)]);
            return;
        }
        case ElementType::Mxfp4Blocks: {  // e qs[16]
            // ggml's levels are E2M1's doubled, under half the E8M0 scale 2^(e - 127): the
            // products are the same powers of two times the same codes.
            const float d = halfE8m0(b[0]);
            for (int j = 0; j < 32; ++j)
                out[j] = d * static_cast<float>(kMxfp4Levels[nibble32(b + 1, j)]);
            return;
        }
        case ElementType::Q2_K: {  // scales[16] qs[64] d dmin
            const std::uint8_t *scales = b, *qs = b + 16;
            const float d = half(b + 80), dmin = half(b + 82);
            for (std::size_t e = 0; e < kSuper; ++e) {
                const std::size_t half128 = e / 128, shift = (e % 128) / 32, j = e % 32;
                const int q = (qs[half128 * 32 + j] >> (2 * shift)) & 3;
                const std::uint8_t s = scales[e / 16];
                const float dl = d * static_cast<float>(s & 0xF);
                const float ml = dmin * static_cast<float>(s >> 4);
                out[e] = dl * static_cast<float>(q) - ml;
            }
            return;
        }
        case ElementType::Q3_K: {  // hmask[32] qs[64] scales[12] d
            const std::uint8_t *hmask = b, *qs = b + 32, *packed = b + 96;
            const float d = half(b + 108);
            int scale[16];
            for (int s = 0; s < 16; ++s) {
                const int low = (packed[s % 8] >> (4 * (s / 8))) & 0xF;
                const int high = (packed[8 + s % 4] >> (2 * (s / 4))) & 3;
                scale[s] = (low | high << 4) - 32;
            }
            for (std::size_t e = 0; e < kSuper; ++e) {
                const std::size_t half128 = e / 128, shift = (e % 128) / 32, j = e % 32;
                const int low = (qs[half128 * 32 + j] >> (2 * shift)) & 3;
                const int high = (hmask[j] >> (e / 32)) & 1;
                const float dl = d * static_cast<float>(scale[e / 16]);
                out[e] = dl * static_cast<float>(low - (high ? 0 : 4));
            }
            return;
        }
        case ElementType::Q4_K:
        case ElementType::Q5_K: {  // d dmin scales[12] (Q5_K: qh[32]) qs[128]
            const float d = half(b), dmin = half(b + 2);
            int scale[8], min[8];
            scalesAndMins(b + 4, scale, min);
            const bool five = type == ElementType::Q5_K;
            const std::uint8_t* qh = b + 16;
            const std::uint8_t* qs = b + (five ? 48 : 16);
            // A sub-block of 32 at a time (one scale, one shift): loops the compiler vectorises.
            for (int sub = 0; sub < 8; ++sub) {
                const float dl = d * static_cast<float>(scale[sub]);
                const float ml = dmin * static_cast<float>(min[sub]);
                const std::uint8_t* q = qs + (sub / 2) * 32;
                const int shift = 4 * (sub % 2);
                float* o = out + sub * 32;
                if (five)
                    for (int j = 0; j < 32; ++j)
                        o[j] = dl * static_cast<float>(((q[j] >> shift) & 0xF) |
                                                       (((qh[j] >> sub) & 1) << 4)) -
                               ml;
                else
                    for (int j = 0; j < 32; ++j)
                        o[j] = dl * static_cast<float>((q[j] >> shift) & 0xF) - ml;
            }
            return;
        }
        case ElementType::Q6_K: {  // ql[128] qh[64] scales[16] d
            const std::uint8_t *ql = b, *qh = b + 128;
            const auto* scales = reinterpret_cast<const std::int8_t*>(b + 192);
            const float d = half(b + 208);
            // Sixteen elements at a time share a scale: element e = 128 h + 32 part + 16 k + j.
            for (int h = 0; h < 2; ++h)
                for (int part = 0; part < 4; ++part)
                    for (int k = 0; k < 2; ++k) {
                        const int first = 128 * h + 32 * part + 16 * k;
                        const float dl = d * static_cast<float>(scales[first / 16]);
                        const std::uint8_t* low = ql + h * 64 + (part % 2) * 32 + 16 * k;
                        const std::uint8_t* high = qh + h * 32 + 16 * k;
                        const int lowShift = 4 * (part / 2), highShift = 2 * part;
                        for (int j = 0; j < 16; ++j)
                            out[first + j] =
                                dl * static_cast<float>((((low[j] >> lowShift) & 0xF) |
                                                         (((high[j] >> highShift) & 3) << 4)) -
                                                        32);
                    }
            return;
        }
        case ElementType::IQ4_XS: {  // d scales_h(u16) scales_l[4] qs[128]
            const float d = half(b);
            const int high = b[2] | b[3] << 8;
            const std::uint8_t* qs = b + 8;
            for (std::size_t sub = 0; sub < 8; ++sub) {
                const int low = (b[4 + sub / 2] >> (4 * (sub % 2))) & 0xF;
                const int scale = (low | ((high >> (2 * sub)) & 3) << 4) - 32;
                const float dl = d * static_cast<float>(scale);
                for (int j = 0; j < 32; ++j)
                    out[sub * 32 + j] =
                        dl * static_cast<float>(kIq4Levels[nibble32(qs + sub * 16, j)]);
            }
            return;
        }
        default:
            return;
    }
}

}  // namespace

BlockFormat blockFormat(ElementType type) {
    switch (type) {
        case ElementType::Q4_0:
            return {32, 18};
        case ElementType::Q4_1:
            return {32, 20};
        case ElementType::Q5_0:
            return {32, 22};
        case ElementType::Q5_1:
            return {32, 24};
        case ElementType::Q8_0:
            return {32, 34};
        case ElementType::IQ4_NL:
            return {32, 18};
        case ElementType::Mxfp4Blocks:
            return {32, 17};
        case ElementType::Q2_K:
            return {kSuper, 84};
        case ElementType::Q3_K:
            return {kSuper, 110};
        case ElementType::Q4_K:
            return {kSuper, 144};
        case ElementType::Q5_K:
            return {kSuper, 176};
        case ElementType::Q6_K:
            return {kSuper, 210};
        case ElementType::IQ4_XS:
            return {kSuper, 136};
        default:
            return {};
    }
}

void decodeGgmlBlocks(ElementType type, const std::uint8_t* blocks, std::size_t first,
                      std::size_t count, float* out) {
    const BlockFormat f = blockFormat(type);
    float scratch[kSuper];
    while (count > 0) {
        const std::size_t block = first / f.elements, offset = first % f.elements;
        const std::size_t take = std::min(count, f.elements - offset);
        const std::uint8_t* source = blocks + block * f.bytes;
        if (offset == 0 && take == f.elements) {
            decodeBlock(type, source, out);
        } else {
            decodeBlock(type, source, scratch);
            std::copy_n(scratch + offset, take, out);
        }
        out += take;
        first += take;
        count -= take;
    }
}

}  // namespace qkv
