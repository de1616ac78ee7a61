#pragma once
// One 32-element block of a compact weight decoded into two AVX-512 registers, shared by the
// code that decodes blocks where it reads them: the element decoders (mxfp4.cpp,
// ggml_blocks.cpp) and the few-rows product (few_rows_gemm.cpp).
#if defined(__AVX512F__)
#include <immintrin.h>

#include <cstdint>
#include <cstring>

namespace qkv {

// A block's 32 values in two registers; which elements each holds is the format's.
struct BlockHalves {
    __m512 low, high;
};

// MXFP4's 16 bytes: `low` the 16 low nibbles' values (elements 0, 2, ..., 30), `high` the 16
// high nibbles' (1, 3, ..., 31), each the nibble's entry of `table` (the 16 codes times the
// block's scale, each product exact in float32).
inline BlockHalves decodeMxfp4Halves(const std::uint8_t* bytes, __m512 table) {
    const __m512i packed =
        _mm512_cvtepu8_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(bytes)));
    // permutexvar reads an index's low four bits: the low nibble needs no mask.
    return {_mm512_permutexvar_ps(packed, table),
            _mm512_permutexvar_ps(_mm512_srli_epi32(packed, 4), table)};
}

// GGUF's Q8_0 block (an f16 scale d, then 32 int8 codes q in element order): `low` elements
// 0-15, `high` 16-31, each q · d, exact in float32 (8 by 11 significant bits) as ggml's.
inline BlockHalves decodeQ8_0Halves(const std::uint8_t* block) {
    std::uint16_t scale;
    std::memcpy(&scale, block, sizeof scale);
    const __m512 d = _mm512_cvtph_ps(_mm256_set1_epi16(static_cast<short>(scale)));
    const auto values = [d](const std::uint8_t* codes) {
        const __m128i q = _mm_loadu_si128(reinterpret_cast<const __m128i*>(codes));
        return _mm512_mul_ps(_mm512_cvtepi32_ps(_mm512_cvtepi8_epi32(q)), d);
    };
    return {values(block + 2), values(block + 18)};
}

}  // namespace qkv
#endif
