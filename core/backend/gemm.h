#pragma once
// Row-major GEMM for the training kernels, in float (training) and double (gradient checks):
//   C (m x n) = alpha * op(A) op(B) + beta * C,  op(X) = X or X^T,
// with leading dimensions (row strides) as in BLAS. Both go to OpenBLAS; parallelGemm splits C
// into one block per pool thread and runs each block single-threaded (see BlasThreadsGuard).
#include "core/backend/matrix_view.h"
#include "core/util/thread_pool.h"

namespace qkv {

struct GemmArgs {
    bool transA = false;
    bool transB = false;
    int m = 0, n = 0, k = 0;
};

template <typename T>
void gemm(const GemmArgs& g, T alpha, const T* a, int lda, const T* b, int ldb, T beta, T* c,
          int ldc);

template <typename T>
void parallelGemm(ThreadPool& pool, const GemmArgs& g, T alpha, const T* a, int lda, const T* b,
                  int ldb, T beta, T* c, int ldc);

// From the first call on, OpenBLAS runs each call on the calling thread only, so the thread
// pools are the only workers: OpenBLAS's own threads spin for a while after every call and
// would take the cores from a pool's per-head or element-wise work that follows.
void useSingleThreadedBlas();

// C (m x n, row-major, ldc) = alpha * A (m x k) * B (k x n) + beta * C for arbitrary-layout
// views; on the pool's threads when one is given.
void gemmOfViews(ThreadPool* pool, const MatrixView& a, const MatrixView& b, float alpha,
                 float beta, float* c, int ldc);

}  // namespace qkv
