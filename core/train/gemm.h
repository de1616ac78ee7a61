#pragma once
// Row-major GEMM for the training kernels, in float (training) and double (gradient checks):
//   C (m x n) = alpha * op(A) op(B) + beta * C,  op(X) = X or X^T,
// with leading dimensions (row strides) as in BLAS. Both go to OpenBLAS; parallelGemm splits C
// into one block per pool thread and runs each block single-threaded (see BlasThreadsGuard).
#include "core/train/thread_pool.h"

namespace qkv::train {

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

// While alive, OpenBLAS runs each call on the calling thread only, so the pool's threads are
// the only workers (OpenBLAS's own threads would otherwise spin between calls and compete with
// them for the cores). Restores the previous thread count when destroyed.
class BlasThreadsGuard {
  public:
    BlasThreadsGuard();
    ~BlasThreadsGuard();
    BlasThreadsGuard(const BlasThreadsGuard&) = delete;
    BlasThreadsGuard& operator=(const BlasThreadsGuard&) = delete;

  private:
    int m_previous;
};

}  // namespace qkv::train
