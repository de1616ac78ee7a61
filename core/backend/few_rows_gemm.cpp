#include "core/backend/few_rows_gemm.h"

#include <algorithm>
#include <array>
#include <new>
#include <utility>
#include <vector>

#include "core/backend/block_registers.h"

namespace qkv {

#if defined(__AVX512F__)
namespace {

constexpr int kBlock = 32;       // elements of a block, in every format taken here
constexpr int kTokenTile = 8;    // rows of A a decoded block is multiplied with
constexpr int kChunkPairs = 32;  // column pairs a thread takes at a time
// Rows of A a chunk of columns passes over at a time: their copy in block order (32 · k floats,
// 256 KiB at k = 2048) stays in the level-2 cache.
constexpr int kRowChunk = 32;

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

// Each format decodes block `block` of a column into two registers of 16 values. Which elements
// they hold is the format's: kEvenOdd says the first holds the block's even elements and the
// second its odd ones, else the first holds elements 0-15 and the second 16-31.

// MXFP4 as the Hub stores it: 16 bytes of nibbles a block (the low nibble an even element), the
// scale bytes apart.
struct HubMxfp4 {
    static constexpr bool kEvenOdd = true;
    struct Column {
        const std::uint8_t *nibbles, *scales;
    };
    static Column column(const MatrixView& b, int j) {
        const std::ptrdiff_t element = j * b.colStride;
        return {static_cast<const std::uint8_t*>(b.data) + element / 2,
                b.scales + element / kBlock};
    }
    const __m512 codes = _mm512_loadu_ps(kMxfp4Codes);
    const float* scaleOf = mxfp4ScaleTable().data();
    BlockHalves decode(const Column& c, int block) const {
        const __m512 table = _mm512_mul_ps(codes, _mm512_set1_ps(scaleOf[c.scales[block]]));
        return decodeMxfp4Halves(c.nibbles + 16 * block, table);
    }
};

// GGUF's Q8_0: 34-byte blocks, an f16 scale and the 32 int8 codes in element order.
struct Q8_0Blocks {
    static constexpr bool kEvenOdd = false;
    static constexpr std::ptrdiff_t kBytes = 34;
    using Column = const std::uint8_t*;
    static Column column(const MatrixView& b, int j) {
        return static_cast<const std::uint8_t*>(b.data) + j * b.colStride / kBlock * kBytes;
    }
    static BlockHalves decode(Column c, int block) { return decodeQ8_0Halves(c + kBytes * block); }
};

// BF16, a checkpoint's Linear weight: a block is 32 consecutive elements, each the upper half of
// its float32.
struct Bf16Elements {
    static constexpr bool kEvenOdd = false;
    using Column = const std::uint16_t*;
    static Column column(const MatrixView& b, int j) {
        return static_cast<const std::uint16_t*>(b.data) + j * b.colStride;
    }
    static BlockHalves decode(Column c, int block) {
        const auto widen = [](const std::uint16_t* halves) {
            const __m256i h = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(halves));
            return _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(h), 16));
        };
        return {widen(c + kBlock * block), widen(c + kBlock * block + kBlock / 2)};
    }
};

// Floats on whole cache lines: a 64-byte load across two lines costs two.
template <class T>
struct CacheLineAllocator {
    using value_type = T;
    CacheLineAllocator() = default;
    template <class U>
    CacheLineAllocator(const CacheLineAllocator<U>&) {}
    T* allocate(std::size_t n) {
        return static_cast<T*>(::operator new (n * sizeof(T), std::align_val_t{64}));
    }
    void deallocate(T* p, std::size_t) { ::operator delete (p, std::align_val_t{64}); }
    bool operator==(const CacheLineAllocator&) const { return true; }
};
using AlignedFloats = std::vector<float, CacheLineAllocator<float>>;

// A's m rows, copied with row stride k, in the order the format's halves hold a block's elements.
template <class Format>
AlignedFloats rowsInBlockOrder(const float* a, int lda, int m, int k) {
    AlignedFloats out(static_cast<std::size_t>(m) * k);
    for (int r = 0; r < m; ++r) {
        const float* in = a + static_cast<std::size_t>(r) * lda;
        float* row = out.data() + static_cast<std::size_t>(r) * k;
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

// Two columns of B times Rows rows of x (A in block order, row stride k): sums[2r] and
// sums[2r + 1] are row r's dot products with the first and the second.
template <class Format, int Rows>
void columnPair(const Format& format, const float* x, int k, const typename Format::Column& column0,
                const typename Format::Column& column1, float* sums) {
    __m512 first[Rows], second[Rows];
    for (int r = 0; r < Rows; ++r) first[r] = second[r] = _mm512_setzero_ps();
    for (int block = 0; block < k / kBlock; ++block) {
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
    for (int r = 0; r < Rows; ++r) {
        sums[2 * r] = _mm512_reduce_add_ps(first[r]);
        sums[2 * r + 1] = _mm512_reduce_add_ps(second[r]);
    }
}

template <class Format, int... Rows>
constexpr auto kernelsFor(std::integer_sequence<int, Rows...>) {
    using Kernel = void (*)(const Format&, const float*, int, const typename Format::Column&,
                            const typename Format::Column&, float*);
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
                const auto column0 = Format::column(b, j0), column1 = Format::column(b, j1);
                for (int r0 = firstRow; r0 < lastRow; r0 += kTokenTile) {
                    const int rows = std::min(kTokenTile, lastRow - r0);
                    kernels[rows - 1](format, x.data() + static_cast<std::size_t>(r0) * k, k,
                                      column0, column1, sums);
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
    bool format = false;  // and columns that start on whole blocks
    if (b.type == ElementType::Mxfp4 || b.type == ElementType::Q8_0)
        format = b.colStride % kBlock == 0 && b.origin == 0;
    else if (b.type == ElementType::BF16)
        format = true;
    return format && b.rowStride == 1 && b.rows % kBlock == 0 && m >= 1 && m <= kFewRowsGemmRows;
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
