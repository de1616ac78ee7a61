#pragma once
// C = A · B + beta C for an MXFP4 weight B and few rows of A (the tokens one expert of a mixture
// is given): each block of B is decoded into vector registers where it is multiplied, never into
// memory, and no operand is packed. Per element the products are those of compactGemm (the
// decoded weight times A's float32 value, summed in float32), in another order.
#include "core/backend/matrix_view.h"
#include "core/util/thread_pool.h"

namespace qkv {

// Whether mxfp4SmallGemm computes this product: B MXFP4 with each column's k elements contiguous
// in whole blocks, at most kMxfp4SmallGemmRows rows of A, and a CPU with AVX-512.
constexpr int kMxfp4SmallGemmRows = 32;
bool mxfp4SmallGemmApplies(int m, const MatrixView& b);

// A: m x k row-major with row stride lda; B: k x n as above; C: m x n row-major with row stride
// ldc. Columns are split over the pool's threads.
void mxfp4SmallGemm(ThreadPool& pool, const float* a, int lda, int m, const MatrixView& b,
                    float beta, float* c, int ldc);

}  // namespace qkv
