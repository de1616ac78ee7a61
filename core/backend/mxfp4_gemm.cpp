#include "core/backend/mxfp4_gemm.h"

#include <algorithm>
#include <array>
#include <vector>

#include "core/backend/mxfp4_registers.h"

namespace qkv {

#if defined(__AVX512F__)
namespace {

constexpr int kTokenTile = 8;    // rows of A a decoded block is multiplied with
constexpr int kChunkPairs = 32;  // column pairs a thread takes at a time

// A's rows with each 32-element block's even elements first, then its odd ones: the order of a
// block's low and high nibbles, so that a decoded block needs no interleaving.
std::vector<float> deinterleavedRows(const float* a, int lda, int m, int k) {
    std::vector<float> out(static_cast<std::size_t>(m) * k);
    for (int r = 0; r < m; ++r)
        for (int block = 0; block < k; block += static_cast<int>(kMxfp4BlockElements)) {
            const float* in = a + static_cast<std::size_t>(r) * lda + block;
            float* even = out.data() + static_cast<std::size_t>(r) * k + block;
            for (int i = 0; i < 16; ++i) {
                even[i] = in[2 * i];
                even[16 + i] = in[2 * i + 1];
            }
        }
    return out;
}

// mxfp4Scale of every scale byte, so that the inner loop calls no function (a call would spill
// its accumulators).
const std::array<float, 256>& scaleTable() {
    static const std::array<float, 256> table = [] {
        std::array<float, 256> t{};
        for (int s = 0; s < 256; ++s) t[s] = mxfp4Scale(static_cast<std::uint8_t>(s));
        return t;
    }();
    return table;
}

// Two columns of B (their blocks and scales) times Rows rows of the deinterleaved A (row stride
// k): sums[2r] and sums[2r + 1] are row r's dot products with the first and the second.
template <int Rows>
void columnPair(const float* x, int k, const std::uint8_t* blocks0, const std::uint8_t* scales0,
                const std::uint8_t* blocks1, const std::uint8_t* scales1, __m512 codes,
                const float* scaleOf, float* sums) {
    __m512 first[Rows], second[Rows];
    for (int r = 0; r < Rows; ++r) first[r] = second[r] = _mm512_setzero_ps();
    const int blocks = k / static_cast<int>(kMxfp4BlockElements);
    for (int block = 0; block < blocks; ++block) {
        const Mxfp4Halves w0 = decodeMxfp4Halves(
            blocks0 + block * 16, _mm512_mul_ps(codes, _mm512_set1_ps(scaleOf[scales0[block]])));
        const Mxfp4Halves w1 = decodeMxfp4Halves(
            blocks1 + block * 16, _mm512_mul_ps(codes, _mm512_set1_ps(scaleOf[scales1[block]])));
        for (int r = 0; r < Rows; ++r) {
            const float* row = x + static_cast<std::size_t>(r) * k + block * 32;
            const __m512 even = _mm512_loadu_ps(row), odd = _mm512_loadu_ps(row + 16);
            first[r] = _mm512_fmadd_ps(even, w0.low, first[r]);
            second[r] = _mm512_fmadd_ps(even, w1.low, second[r]);
            first[r] = _mm512_fmadd_ps(odd, w0.high, first[r]);
            second[r] = _mm512_fmadd_ps(odd, w1.high, second[r]);
        }
    }
    for (int r = 0; r < Rows; ++r) {
        sums[2 * r] = _mm512_reduce_add_ps(first[r]);
        sums[2 * r + 1] = _mm512_reduce_add_ps(second[r]);
    }
}

using ColumnPairKernel = void (*)(const float*, int, const std::uint8_t*, const std::uint8_t*,
                                  const std::uint8_t*, const std::uint8_t*, __m512, const float*,
                                  float*);
constexpr ColumnPairKernel kKernels[kTokenTile] = {columnPair<1>, columnPair<2>, columnPair<3>,
                                                   columnPair<4>, columnPair<5>, columnPair<6>,
                                                   columnPair<7>, columnPair<8>};

}  // namespace

bool mxfp4SmallGemmApplies(int m, const MatrixView& b) {
    const auto block = static_cast<std::ptrdiff_t>(kMxfp4BlockElements);
    return b.type == ElementType::Mxfp4 && m >= 1 && m <= kMxfp4SmallGemmRows && b.rowStride == 1 &&
           b.rows % block == 0 && b.colStride % block == 0;
}

void mxfp4SmallGemm(ThreadPool& pool, const float* a, int lda, int m, const MatrixView& b,
                    float beta, float* c, int ldc) {
    const int k = b.rows, n = b.cols;
    const std::vector<float> x = deinterleavedRows(a, lda, m, k);
    const auto* bytes = static_cast<const std::uint8_t*>(b.data);
    const float* scaleOf = scaleTable().data();
    const int pairs = (n + 1) / 2;
    const int chunks = (pairs + kChunkPairs - 1) / kChunkPairs;
    // Columns are independent: a thread that finishes early takes the next chunk.
    pool.forEachItem(chunks, [&](int chunk, int) {
        const __m512 codes = _mm512_loadu_ps(kMxfp4Codes);
        float sums[2 * kTokenTile];
        const int lastPair = std::min(pairs, (chunk + 1) * kChunkPairs);
        for (int pair = chunk * kChunkPairs; pair < lastPair; ++pair) {
            const int j0 = 2 * pair, j1 = std::min(j0 + 1, n - 1);  // an odd last column twice
            const std::ptrdiff_t e0 = j0 * b.colStride, e1 = j1 * b.colStride;
            const std::ptrdiff_t block = static_cast<std::ptrdiff_t>(kMxfp4BlockElements);
            for (int r0 = 0; r0 < m; r0 += kTokenTile) {
                const int rows = std::min(kTokenTile, m - r0);
                kKernels[rows - 1](x.data() + static_cast<std::size_t>(r0) * k, k, bytes + e0 / 2,
                                   b.scales + e0 / block, bytes + e1 / 2, b.scales + e1 / block,
                                   codes, scaleOf, sums);
                for (int r = 0; r < rows; ++r)
                    for (int j = j0; j <= j1; ++j) {
                        float& out = c[static_cast<std::size_t>(r0 + r) * ldc + j];
                        out = sums[2 * r + (j - j0)] + (beta != 0.0f ? beta * out : 0.0f);
                    }
            }
        }
    });
}

#else

bool mxfp4SmallGemmApplies(int, const MatrixView&) { return false; }
void mxfp4SmallGemm(ThreadPool&, const float*, int, int, const MatrixView&, float, float*, int) {}

#endif

}  // namespace qkv
