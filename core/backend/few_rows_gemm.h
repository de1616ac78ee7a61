#pragma once
// C = A · B + beta C for a compact weight B (MXFP4 as the Hub stores it, GGUF's Q8_0, BF16; read
// in blocks of 32 elements) and few rows of A (a short sentence's tokens, or those one expert of a
// mixture is given): each block of B is decoded into vector registers where it is multiplied,
// never into memory, and no operand is packed. Per element the products are those of compactGemm
// (the decoded weight, bit for bit, times A's float32 value, summed in float32), in another order.
#include "core/backend/matrix_view.h"
#include "core/util/thread_pool.h"

namespace qkv {

// Whether fewRowsGemm computes this product: B MXFP4, Q8_0 or BF16 with each column's k
// elements contiguous in whole blocks of 32, at most kFewRowsGemmRows rows of A, and a CPU with
// AVX-512.
constexpr int kFewRowsGemmRows = 64;
bool fewRowsGemmApplies(int m, const MatrixView& b);

// A: m x k row-major with row stride lda; B: k x n as above; C: m x n row-major with row stride
// ldc. Columns are split over the pool's threads.
void fewRowsGemm(ThreadPool& pool, const float* a, int lda, int m, const MatrixView& b, float beta,
                 float* c, int ldc);

}  // namespace qkv
