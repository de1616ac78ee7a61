#pragma once
// FP8 as the Hub's "-FP8" checkpoints store their linear weights (DeepSeek-V3/R1/V3.2, Kimi K2,
// MiniMax-M2, Qwen3 FP8; transformers' FineGrainedFP8 with fmt e4m3): one float8 e4m3fn byte per
// weight, row-major [rows, cols], and one inverse scale per 128 x 128 block of it, the last block
// row and column ragged where the sides are not multiples of 128. A weight is
// e4m3(byte) * scale_inv[row / 128][col / 128], rounded once to float32 — the value transformers
// dequantises to, bit for bit.
#include <cstddef>
#include <cstdint>

namespace qkv {

constexpr int kFp8BlockSide = 128;  // weight_block_size, the one the Hub's FP8 files use

// The value of an e4m3fn code: sign, 4 exponent bits (bias 7), 3 mantissa bits; no infinities,
// 0x7F and 0xFF are NaN. Exact in float32.
float e4m3ToFloat(std::uint8_t code);

// The scale grid of a [rows, cols] weight: ceil(rows / 128) x ceil(cols / 128).
inline std::int64_t fp8ScaleRows(std::int64_t rows) {
    return (rows + kFp8BlockSide - 1) / kFp8BlockSide;
}
inline std::int64_t fp8ScaleCols(std::int64_t cols) { return fp8ScaleRows(cols); }

// Decodes `count` consecutive elements (in the stored row-major order, across rows) from element
// `first` on of a weight `storedCols` wide, whose block scales are `scales` (row-major, as
// fp8ScaleRows x fp8ScaleCols float32).
void decodeFp8Blocks(const std::uint8_t* codes, const float* scales, std::int64_t storedCols,
                     std::size_t first, std::size_t count, float* out);

}  // namespace qkv
