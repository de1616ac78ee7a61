#include "core/backend/gemm.h"

#include <cblas.h>

#include <algorithm>
#include <mutex>

namespace qkv {
namespace {

CBLAS_TRANSPOSE trans(bool t) { return t ? CblasTrans : CblasNoTrans; }

void blas(const GemmArgs& g, float alpha, const float* a, int lda, const float* b, int ldb,
          float beta, float* c, int ldc) {
    cblas_sgemm(CblasRowMajor, trans(g.transA), trans(g.transB), g.m, g.n, g.k, alpha, a, lda, b,
                ldb, beta, c, ldc);
}

void blas(const GemmArgs& g, double alpha, const double* a, int lda, const double* b, int ldb,
          double beta, double* c, int ldc) {
    cblas_dgemm(CblasRowMajor, trans(g.transA), trans(g.transB), g.m, g.n, g.k, alpha, a, lda, b,
                ldb, beta, c, ldc);
}

// y (1 x n) = alpha · x (1 x k, element stride incx) · op(B) + beta · y.
void rowTimes(const GemmArgs& g, float alpha, const float* x, int incx, const float* b, int ldb,
              float beta, float* y) {
    if (g.transB)  // B stored n x k
        cblas_sgemv(CblasRowMajor, CblasNoTrans, g.n, g.k, alpha, b, ldb, x, incx, beta, y, 1);
    else  // B stored k x n
        cblas_sgemv(CblasRowMajor, CblasTrans, g.k, g.n, alpha, b, ldb, x, incx, beta, y, 1);
}

void rowTimes(const GemmArgs& g, double alpha, const double* x, int incx, const double* b, int ldb,
              double beta, double* y) {
    if (g.transB)
        cblas_dgemv(CblasRowMajor, CblasNoTrans, g.n, g.k, alpha, b, ldb, x, incx, beta, y, 1);
    else
        cblas_dgemv(CblasRowMajor, CblasTrans, g.k, g.n, alpha, b, ldb, x, incx, beta, y, 1);
}

// Up to this many rows of A, a matrix-vector product per row: GEMM packs B first, which for one
// row reads and writes the whole weight matrix once more (3x slower for one row of GPT-2's
// layers, the prefix reuse's common case).
constexpr int kRowByRowRows = 2;

// Blocks narrower than this waste the micro-kernel's register tile.
constexpr int kBlockAlign = 16;

}  // namespace

template <typename T>
void gemm(const GemmArgs& g, T alpha, const T* a, int lda, const T* b, int ldb, T beta, T* c,
          int ldc) {
    if (g.m <= 0 || g.n <= 0) return;
    if (g.k <= 0) {  // BLAS leaves C alone when k = 0 only for beta = 1
        for (int i = 0; i < g.m; ++i)
            for (int j = 0; j < g.n; ++j) c[i * ldc + j] *= beta;
        return;
    }
    if (g.m <= kRowByRowRows) {
        for (int i = 0; i < g.m; ++i)  // row i of op(A): a row, or a column when transposed
            rowTimes(g, alpha, g.transA ? a + i : a + static_cast<long>(i) * lda,
                     g.transA ? lda : 1, b, ldb, beta, c + static_cast<long>(i) * ldc);
        return;
    }
    blas(g, alpha, a, lda, b, ldb, beta, c, ldc);
}

template <typename T>
void parallelGemm(ThreadPool& pool, const GemmArgs& g, T alpha, const T* a, int lda, const T* b,
                  int ldb, T beta, T* c, int ldc) {
    // Split the longer side of C; blocks of whole register tiles.
    const bool byRows = g.m >= g.n;
    const int extent = byRows ? g.m : g.n;
    const int tiles = (extent + kBlockAlign - 1) / kBlockAlign;
    pool.parallelFor(tiles, [&](int, int first, int last) {
        const int begin = first * kBlockAlign;
        const int end = std::min(extent, last * kBlockAlign);
        GemmArgs part = g;
        if (byRows) {
            part.m = end - begin;
            const T* aPart = g.transA ? a + begin : a + static_cast<long>(begin) * lda;
            gemm(part, alpha, aPart, lda, b, ldb, beta, c + static_cast<long>(begin) * ldc, ldc);
        } else {
            part.n = end - begin;
            const T* bPart = g.transB ? b + static_cast<long>(begin) * ldb : b + begin;
            gemm(part, alpha, a, lda, bPart, ldb, beta, c + begin, ldc);
        }
    });
}

template void gemm<float>(const GemmArgs&, float, const float*, int, const float*, int, float,
                          float*, int);
template void gemm<double>(const GemmArgs&, double, const double*, int, const double*, int, double,
                           double*, int);
template void parallelGemm<float>(ThreadPool&, const GemmArgs&, float, const float*, int,
                                  const float*, int, float, float*, int);
template void parallelGemm<double>(ThreadPool&, const GemmArgs&, double, const double*, int,
                                   const double*, int, double, double*, int);

void useSingleThreadedBlas() {
    static std::once_flag once;
    std::call_once(once, [] { openblas_set_num_threads(1); });
}

namespace {

// A view as a BLAS operand: a column-major view is the transpose of a row-major one.
void blasOperand(const MatrixView& v, bool& transposed, int& ld) {
    transposed = v.colStride != 1;
    ld = static_cast<int>(transposed ? std::max<std::ptrdiff_t>(v.colStride, v.rows)
                                     : std::max<std::ptrdiff_t>(v.rowStride, v.cols));
}

}  // namespace

void gemmOfViews(ThreadPool* pool, const MatrixView& a, const MatrixView& b, float alpha,
                 float beta, float* c, int ldc) {
    GemmArgs args;
    int lda, ldb;
    blasOperand(a, args.transA, lda);
    blasOperand(b, args.transB, ldb);
    args.m = a.rows;
    args.n = b.cols;
    args.k = a.cols;
    if (pool)
        parallelGemm(*pool, args, alpha, a.floats(), lda, b.floats(), ldb, beta, c, ldc);
    else
        gemm(args, alpha, a.floats(), lda, b.floats(), ldb, beta, c, ldc);
}

}  // namespace qkv
