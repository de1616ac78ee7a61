#pragma once
// MXFP4 (OCP Microscaling v1.0), the element type of gpt-oss's experts: blocks of 32 elements,
// each a 4-bit E2M1 code (sign bit 8, then codes 0-7 for 0, 0.5, 1, 1.5, 2, 3, 4, 6) packed two
// per byte, the even element in the low nibble, and one E8M0 scale byte per block (2^(byte-127),
// 0xFF being NaN). Every decoded value is a code times a power of two: exact in float32 and in
// bfloat16, so decoding where a weight is read changes no product.
#include <cstddef>
#include <cstdint>

namespace qkv {

constexpr std::size_t kMxfp4BlockElements = 32;

// The value of each 4-bit E2M1 code, before the block's scale.
inline constexpr float kMxfp4Codes[16] = {0.0f,  0.5f,  1.0f,  1.5f,  2.0f,  3.0f,  4.0f,  6.0f,
                                          -0.0f, -0.5f, -1.0f, -1.5f, -2.0f, -3.0f, -4.0f, -6.0f};

// The scale of a block as a float32 (2^-127 is a subnormal; exact).
float mxfp4Scale(std::uint8_t scale);

// Element `index` of an MXFP4 array: `blocks` holds the nibbles, `scales` one byte per block.
float mxfp4At(const std::uint8_t* blocks, const std::uint8_t* scales, std::ptrdiff_t index);

// Decodes `count` consecutive elements from element `first` into `out`.
void decodeMxfp4(const std::uint8_t* blocks, const std::uint8_t* scales, std::size_t first,
                 std::size_t count, float* out);

}  // namespace qkv
