#pragma once
// One MXFP4 block decoded into two AVX-512 registers, shared by the kernels that decode blocks
// where they read them: the element decoder (mxfp4.cpp) and the few-rows product
// (mxfp4_gemm.cpp).
#if defined(__AVX512F__)
#include <immintrin.h>

#include <cstdint>

namespace qkv {

// The values of one block's 16 bytes: `low` the 16 low nibbles' (elements 0, 2, ..., 30),
// `high` the 16 high nibbles' (1, 3, ..., 31), each the nibble's entry of `table` (the 16 codes
// times the block's scale, each product exact in float32).
struct Mxfp4Halves {
    __m512 low, high;
};
inline Mxfp4Halves decodeMxfp4Halves(const std::uint8_t* bytes, __m512 table) {
    const __m512i packed =
        _mm512_cvtepu8_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(bytes)));
    // permutexvar reads an index's low four bits: the low nibble needs no mask.
    return {_mm512_permutexvar_ps(packed, table),
            _mm512_permutexvar_ps(_mm512_srli_epi32(packed, 4), table)};
}

}  // namespace qkv
#endif
