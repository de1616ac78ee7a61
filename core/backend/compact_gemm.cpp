#include "core/backend/compact_gemm.h"

#include <algorithm>
#include <vector>

#include "core/backend/few_rows_gemm.h"
#include "core/backend/gemm.h"
#include "core/util/error.h"

namespace qkv {
namespace {

// Columns per panel: k x 256 floats is 4 MiB at k = 4096, in the last-level cache, and few
// enough SGEMM calls per weight that packing the activations each time costs little.
constexpr int kPanelColumns = 256;

// Widens columns [first, first + count) of b into `panel`: as count x k (each column's k
// elements together) when b is column-major, else as k x count. Returns whether it is the
// former (the panel is then Bᵀ for the GEMM).
bool widenPanel(const MatrixView& b, int first, int count, std::vector<float>& panel) {
    const size_t k = static_cast<size_t>(b.rows);
    panel.resize(k * count);
    if (b.rowStride == 1) {  // column j's elements are contiguous
        for (int j = 0; j < count; ++j)
            b.widenRun(static_cast<std::ptrdiff_t>(first + j) * b.colStride, k,
                       panel.data() + j * k);
        return true;
    }
    for (size_t r = 0; r < k; ++r)  // colStride == 1: row r's columns are contiguous
        b.widenRun(static_cast<std::ptrdiff_t>(r) * b.rowStride + first, count,
                   panel.data() + r * count);
    return false;
}

}  // namespace

void compactGemm(ThreadPool& pool, const float* a, int lda, int m, const MatrixView& b, float beta,
                 float* c, int ldc) {
    if (b.rowStride != 1 && b.colStride != 1)
        throw Error("internal error: a compact weight needs unit row or column stride");
    if (fewRowsGemmApplies(m, b)) {  // few tokens on a block weight: decoded in registers
        fewRowsGemm(pool, a, lda, m, b, beta, c, ldc);
        return;
    }
    const int panels = (b.cols + kPanelColumns - 1) / kPanelColumns;
    pool.parallelFor(panels, [&](int, int firstPanel, int lastPanel) {
        thread_local std::vector<float> panel, product;
        for (int p = firstPanel; p < lastPanel; ++p) {
            const int first = p * kPanelColumns;
            const int count = std::min(kPanelColumns, b.cols - first);
            GemmArgs args;
            args.k = b.rows;
            if (widenPanel(b, first, count, panel)) {
                // The panel is count x k: Cᵀ = panel · Aᵀ puts the panel's rows on OpenBLAS's
                // long side, faster than A · panelᵀ when A has few rows (tokens).
                args.m = count;
                args.n = m;
                args.transB = true;
                product.resize(static_cast<size_t>(count) * m);
                gemm(args, 1.0f, panel.data(), b.rows, a, lda, 0.0f, product.data(), m);
                for (int r = 0; r < m; ++r) {
                    float* row = c + static_cast<size_t>(r) * ldc + first;
                    for (int j = 0; j < count; ++j)
                        row[j] = product[static_cast<size_t>(j) * m + r] +
                                 (beta != 0.0f ? beta * row[j] : 0.0f);
                }
            } else {
                args.m = m;
                args.n = count;
                gemm(args, 1.0f, a, lda, panel.data(), count, beta, c + first, ldc);
            }
        }
    });
}

}  // namespace qkv
