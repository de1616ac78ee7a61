#pragma once
// C = A · B + beta C with A float32 and B a weight kept in its stored element type (F16, BF16,
// MXFP4, a GGUF block type).
// B is widened to float32 one panel of columns at a time into a per-thread scratch that stays in
// cache, and each panel goes through OpenBLAS's SGEMM: the products are those of a float32 GEMM
// on the widened weight (summed in SGEMM's order), and no float32 copy of the weight is whole.
// An MXFP4, Q8_0 or BF16 weight times few rows (a short sentence, an expert's tokens) is decoded
// in registers instead (few_rows_gemm.h).
#include "core/backend/matrix_view.h"
#include "core/util/thread_pool.h"

namespace qkv {

// A: m x k row-major with row stride lda; B: k x n, unit row or column stride; C: m x n
// row-major with row stride ldc. Panels are split over the pool's threads.
void compactGemm(ThreadPool& pool, const float* a, int lda, int m, const MatrixView& b, float beta,
                 float* c, int ldc);

}  // namespace qkv
