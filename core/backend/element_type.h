#pragma once
// The element types weights are kept in: checkpoints' F32, F16 and BF16, and the MXFP4 blocks of
// gpt-oss's experts, viewed where the file maps them (an 8B model in bf16 stays 16 GB, not 32).
// Arithmetic is float32 throughout; a compact weight is widened where it is read.
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "core/util/half.h"

namespace qkv {

enum class ElementType : std::uint8_t { F32, F16, BF16, Mxfp4 };

// Bytes per element of the byte-addressable types (MXFP4's are half a byte plus a block scale:
// views of it index nibbles, see MatrixView).
constexpr std::size_t elementBytes(ElementType type) { return type == ElementType::F32 ? 4 : 2; }
const char* elementTypeName(ElementType type);  // "F32", "F16", "BF16", "MXFP4"

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
