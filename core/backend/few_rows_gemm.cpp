#include "core/backend/few_rows_gemm.h"

#include <algorithm>
#include <array>
#include <utility>

#include "core/format/block_registers.h"
#include "core/util/aligned_floats.h"

namespace qkv {

#if defined(__AVX512F__)
namespace {

constexpr int kBlock = 32;       // elements of a block, in every format taken here
constexpr int kTokenTile = 8;    // rows of A a decoded block is multiplied with
constexpr int kChunkPairs = 32;  // column pairs a thread takes at a time
// Rows of A a chunk of columns passes over at a time: their copy in block order (32 · k floats,
// 256 KiB at k = 2048) stays in the level-2 cache.
constexpr int kRowChunk = 32;
// Columns ahead of the pair being multiplied whose blocks are prefetched: the hardware's
// prefetchers stop at each 4 KiB page, and with few rows a column pair is multiplied in less
// time than its blocks take to come from memory (twice as fast at 1-7 rows, 15 % at 8).
constexpr int kPrefetchColumns = 4;

// mxfp4Scale of every scale byte, so that the inner loop calls no function (a call would spill
// its accumulators).
const std::array<float, 256>& mxfp4ScaleTable() {
    static const std::array<float, 256> table = [] {
        std::array<float, 256> t{};
        for (int s = 0; s < 256; ++s) t[s] = mxfp4Scale(static_cast<std::uint8_t>(s));
        return t;
    }();
    return table;
}

// Each format decodes block `block` of a column (the view of that column, MatrixView::columns)
// into two registers of 16 values, and prefetches it, both from the block's address (blockAt).
// Which elements the registers hold is the format's: kEvenOdd says the first holds the block's
// even elements and the second its odd ones, else the first holds elements 0-15 and the second
// 16-31.
inline void prefetchLine(const void* address) {
    _mm_prefetch(static_cast<const char*>(address), _MM_HINT_T0);
}

// MXFP4 as the Hub stores it: 16 bytes of nibbles a block (the low nibble an even element), the
// scale bytes apart.
struct HubMxfp4 {
    static constexpr bool kEvenOdd = true;
    const __m512 codes = _mm512_loadu_ps(kMxfp4Codes);
    const float* scaleOf = mxfp4ScaleTable().data();
    static const std::uint8_t* blockAt(const MatrixView& column, int block) {
        return static_cast<const std::uint8_t*>(column.data) + 16 * block;
    }
    BlockHalves decode(const MatrixView& column, int block) const {
        const __m512 table = _mm512_mul_ps(codes, _mm512_set1_ps(scaleOf[column.scales[block]]));
        return decodeMxfp4Halves(blockAt(column, block), table);
    }
    static void prefetch(const MatrixView& column, int block) {
        prefetchLine(blockAt(column, block));
        prefetchLine(column.scales + block);
    }
};

// GGUF's Q8_0: 34-byte blocks, an f16 scale and the 32 int8 codes in element order.
struct Q8_0Blocks {
    static constexpr bool kEvenOdd = false;
    static const std::uint8_t* blockAt(const MatrixView& column, int block) {
        return static_cast<const std::uint8_t*>(column.data) + 34 * block;
    }
    static BlockHalves decode(const MatrixView& column, int block) {
        return decodeQ8_0Halves(blockAt(column, block));
    }
    static void prefetch(const MatrixView& column, int block) {
        prefetchLine(blockAt(column, block));
    }
};

// BF16, a checkpoint's Linear weight: a block is 32 consecutive elements, each the upper half of
// its float32.
struct Bf16Elements {
    static constexpr bool kEvenOdd = false;
    static const std::uint16_t* blockAt(const MatrixView& column, int block) {
        return static_cast<const std::uint16_t*>(column.data) + kBlock * block;
    }
    static BlockHalves decode(const MatrixView& column, int block) {
        const auto widen = [](const std::uint16_t* halves) {
            const __m256i h = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(halves));
            return _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(h), 16));
        };
        const std::uint16_t* values = blockAt(column, block);
        return {widen(values), widen(values + kBlock / 2)};
    }
    static void prefetch(const MatrixView& column, int block) {
        prefetchLine(blockAt(column, block));
    }
};

// A's m rows, copied with row stride k, in the order the format's halves hold a block's elements,
// on whole cache lines (a 64-byte load across two lines costs two).
template <class Format>
AlignedFloats rowsInBlockOrder(const float* a, int lda, int m, int k) {
    AlignedFloats out = alignedFloats(static_cast<std::size_t>(m) * k);
    for (int r = 0; r < m; ++r) {
        const float* in = a + static_cast<std::size_t>(r) * lda;
        float* row = out.get() + static_cast<std::size_t>(r) * k;
        if (!Format::kEvenOdd) {
            std::copy(in, in + k, row);
            continue;
        }
        for (int block = 0; block < k; block += kBlock)
            for (int i = 0; i < kBlock / 2; ++i) {
                row[block + i] = in[block + 2 * i];
                row[block + kBlock / 2 + i] = in[block + 2 * i + 1];
            }
    }
    return out;
}

// The sums of sixteen registers' elements, in one register: 45 instructions (halving the width
// three times, pairing registers), where one register's sum alone takes eight. Register `slot`
// of `v` is summed into element sumSlot(slot); the halving puts it there. sumSlot is its own
// inverse, so the register put in slot sumSlot(i) gives element i.
constexpr int sumSlot(int i) { return i >= 4 && i < 8 ? i + 4 : i >= 8 && i < 12 ? i - 4 : i; }
// The shuffles in their zero-masking forms with every lane kept: the same instructions, but
// the plain forms' undefined pass-through register makes GCC 12 warn at link time.
constexpr __mmask16 kEvery = 0xFFFF;
inline __m512 sumsOfSixteen(const __m512 v[16]) {
    __m512 half[8], quarter[4];
    // Halves of v[i] and v[i + 8], 256 bits each, added: each 128-bit lane of half[i] holds
    // four partial sums of one register, of v[i], v[i], v[i + 8], v[i + 8].
    for (int i = 0; i < 8; ++i)
        half[i] = _mm512_add_ps(
            _mm512_maskz_shuffle_f32x4(kEvery, v[i], v[i + 8], _MM_SHUFFLE(1, 0, 1, 0)),
            _mm512_maskz_shuffle_f32x4(kEvery, v[i], v[i + 8], _MM_SHUFFLE(3, 2, 3, 2)));
    // The lanes of half[i] and half[i + 4] paired: lanes of v[i], v[i + 8], v[i + 4], v[i + 12].
    for (int i = 0; i < 4; ++i)
        quarter[i] = _mm512_add_ps(
            _mm512_maskz_shuffle_f32x4(kEvery, half[i], half[i + 4], _MM_SHUFFLE(2, 0, 2, 0)),
            _mm512_maskz_shuffle_f32x4(kEvery, half[i], half[i + 4], _MM_SHUFFLE(3, 1, 3, 1)));
    // Within each lane, the four partial sums of quarter[0..3] added: element e of lane L is
    // register L's (as above) of quarter[e].
    const auto pairSums = [](__m512 a, __m512 b) {
        return _mm512_add_ps(_mm512_maskz_unpacklo_ps(kEvery, a, b),
                             _mm512_maskz_unpackhi_ps(kEvery, a, b));
    };
    const __m512 t0 = pairSums(quarter[0], quarter[1]), t1 = pairSums(quarter[2], quarter[3]);
    return _mm512_add_ps(_mm512_maskz_shuffle_ps(kEvery, t0, t1, _MM_SHUFFLE(1, 0, 1, 0)),
                         _mm512_maskz_shuffle_ps(kEvery, t0, t1, _MM_SHUFFLE(3, 2, 3, 2)));
}

// Two columns of B times Rows rows of x (A in block order, row stride k): sums[2r] and
// sums[2r + 1] are row r's dot products with the first and the second. The blocks of ahead0 and
// ahead1, columns to come, are prefetched meanwhile.
template <class Format, int Rows>
void columnPair(const Format& format, const float* x, int k, const MatrixView& column0,
                const MatrixView& column1, const MatrixView& ahead0, const MatrixView& ahead1,
                float* sums) {
    __m512 first[Rows], second[Rows];
    for (int r = 0; r < Rows; ++r) first[r] = second[r] = _mm512_setzero_ps();
    for (int block = 0; block < k / kBlock; ++block) {
        Format::prefetch(ahead0, block);
        Format::prefetch(ahead1, block);
        const BlockHalves w0 = format.decode(column0, block), w1 = format.decode(column1, block);
        for (int r = 0; r < Rows; ++r) {
            const float* row = x + static_cast<std::size_t>(r) * k + block * kBlock;
            __m512 lower = _mm512_loadu_ps(row), upper = _mm512_loadu_ps(row + 16);
            // In registers: else the compiler folds each load into both columns' FMAs and
            // loads the row twice, which leaves the loads, not the FMAs, the bottleneck.
            __asm__("" : "+v"(lower), "+v"(upper));
            first[r] = _mm512_fmadd_ps(lower, w0.low, first[r]);
            second[r] = _mm512_fmadd_ps(lower, w1.low, second[r]);
            first[r] = _mm512_fmadd_ps(upper, w0.high, first[r]);
            second[r] = _mm512_fmadd_ps(upper, w1.high, second[r]);
        }
    }
    // Sums 2r and 2r + 1 of the sixteen are row r's, the rest zero.
    __m512 all[16];
    for (int i = 2 * Rows; i < 16; ++i) all[sumSlot(i)] = _mm512_setzero_ps();
    for (int r = 0; r < Rows; ++r) {
        all[sumSlot(2 * r)] = first[r];
        all[sumSlot(2 * r + 1)] = second[r];
    }
    _mm512_storeu_ps(sums, sumsOfSixteen(all));
}

template <class Format, int... Rows>
constexpr auto kernelsFor(std::integer_sequence<int, Rows...>) {
    using Kernel = void (*)(const Format&, const float*, int, const MatrixView&, const MatrixView&,
                            const MatrixView&, const MatrixView&, float*);
    return std::array<Kernel, sizeof...(Rows)>{columnPair<Format, Rows + 1>...};
}

template <class Format>
void fewRowsGemmIn(ThreadPool& pool, const float* a, int lda, int m, const MatrixView& b,
                   float beta, float* c, int ldc) {
    static constexpr auto kernels =
        kernelsFor<Format>(std::make_integer_sequence<int, kTokenTile>{});
    const int k = b.rows, n = b.cols;
    const AlignedFloats x = rowsInBlockOrder<Format>(a, lda, m, k);
    const int pairs = (n + 1) / 2;
    const int chunks = (pairs + kChunkPairs - 1) / kChunkPairs;
    // Columns are independent: a thread that finishes early takes the next chunk.
    pool.forEachItem(chunks, [&](int chunk, int) {
        const Format format;
        float sums[2 * kTokenTile];
        const int firstPair = chunk * kChunkPairs,
                  lastPair = std::min(pairs, firstPair + kChunkPairs);
        // The chunk's columns pass over kRowChunk rows at a time, which stay in the level-2
        // cache; the columns' blocks come from memory once and from that cache again.
        for (int firstRow = 0; firstRow < m; firstRow += kRowChunk) {
            const int lastRow = std::min(m, firstRow + kRowChunk);
            for (int pair = firstPair; pair < lastPair; ++pair) {
                const int j0 = 2 * pair, j1 = std::min(j0 + 1, n - 1);  // an odd last column twice
                const MatrixView column0 = b.columns(j0, 1), column1 = b.columns(j1, 1);
                const MatrixView ahead0 = b.columns(std::min(j0 + kPrefetchColumns, n - 1), 1),
                                 ahead1 = b.columns(std::min(j1 + kPrefetchColumns, n - 1), 1);
                for (int r0 = firstRow; r0 < lastRow; r0 += kTokenTile) {
                    const int rows = std::min(kTokenTile, lastRow - r0);
                    kernels[rows - 1](format, x.get() + static_cast<std::size_t>(r0) * k, k,
                                      column0, column1, ahead0, ahead1, sums);
                    for (int r = 0; r < rows; ++r)
                        for (int j = j0; j <= j1; ++j) {
                            float& out = c[static_cast<std::size_t>(r0 + r) * ldc + j];
                            out = sums[2 * r + (j - j0)] + (beta != 0.0f ? beta * out : 0.0f);
                        }
                }
            }
        }
    });
}

}  // namespace

bool fewRowsGemmApplies(int m, const MatrixView& b) {
    const bool blocks = b.type == ElementType::Mxfp4 || b.type == ElementType::Q8_0;
    if (!blocks && b.type != ElementType::BF16) return false;
    if (blocks && (b.colStride % kBlock != 0 || b.origin != 0))
        return false;  // a column would start inside a block
    return b.rowStride == 1 && b.rows % kBlock == 0 && m >= 1 && m <= kFewRowsGemmRows;
}

void fewRowsGemm(ThreadPool& pool, const float* a, int lda, int m, const MatrixView& b, float beta,
                 float* c, int ldc) {
    if (b.type == ElementType::Mxfp4)
        fewRowsGemmIn<HubMxfp4>(pool, a, lda, m, b, beta, c, ldc);
    else if (b.type == ElementType::Q8_0)
        fewRowsGemmIn<Q8_0Blocks>(pool, a, lda, m, b, beta, c, ldc);
    else
        fewRowsGemmIn<Bf16Elements>(pool, a, lda, m, b, beta, c, ldc);
}

#else

bool fewRowsGemmApplies(int, const MatrixView&) { return false; }
void fewRowsGemm(ThreadPool&, const float*, int, int, const MatrixView&, float, float*, int) {}

#endif

}  // namespace qkv
