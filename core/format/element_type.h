#pragma once
// The element types weights are kept in: checkpoints' F32, F16 and BF16, the MXFP4 blocks of
// gpt-oss's experts and GGUF's quantised blocks, viewed where the file maps them (an 8B model in
// bf16 stays 16 GB, not 32). Arithmetic is float32 throughout; a compact weight is widened where it
// is read.
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "core/util/half.h"

namespace qkv {

// Q4_0 ... IQ4_XS: llama.cpp's block formats (ggml_blocks.h), as GGUF files store them.
enum class ElementType : std::uint8_t {
    F32,
    F16,
    BF16,
    Mxfp4,
    Q4_0,
    Q4_1,
    Q5_0,
    Q5_1,
    Q8_0,
    Q2_K,
    Q3_K,
    Q4_K,
    Q5_K,
    Q6_K,
    IQ4_NL,
    IQ4_XS,
    // ggml's MXFP4 (gpt-oss's GGUF files): the same values as Mxfp4 in 17-byte blocks of a row's
    // 32 elements, the E8M0 scale first.
    Mxfp4Blocks,
    // The Hub's FP8: e4m3fn bytes with a float32 scale per 128 x 128 block (fp8.h).
    Fp8Blocks,
};

// Bytes per element of the byte-addressable types F32, F16 and BF16 (MXFP4's are half a byte plus
// a block scale, FP8's a byte plus a block scale, the GGUF types' blocks of their own: views of
// them index elements, see MatrixView).
constexpr std::size_t elementBytes(ElementType type) { return type == ElementType::F32 ? 4 : 2; }
constexpr bool isByteAddressable(ElementType type) {
    return type == ElementType::F32 || type == ElementType::F16 || type == ElementType::BF16;
}
const char* elementTypeName(ElementType type);  // "F32", "F16", "BF16", "MXFP4", "FP8"

// Element `index` of an array of a byte-addressable `type`, as float32 (exact: both half types
// widen exactly).
inline float elementAt(ElementType type, const void* data, std::ptrdiff_t index) {
    const auto* bytes = static_cast<const unsigned char*>(data) +
                        index * static_cast<std::ptrdiff_t>(elementBytes(type));
    if (type == ElementType::F32) {
        float f;
        std::memcpy(&f, bytes, sizeof f);
        return f;
    }
    std::uint16_t h;
    std::memcpy(&h, bytes, sizeof h);
    return type == ElementType::BF16 ? bf16ToFloat(h) : f16ToFloat(h);
}

// Widens `count` consecutive elements of a byte-addressable `type` at `source` into `out`
// (vectorised for BF16).
void widen(ElementType type, const void* source, std::size_t count, float* out);

}  // namespace qkv
