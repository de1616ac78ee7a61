#include "core/train/attention_ops.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "core/backend/gemm.h"
#include "core/train/fast_math.h"

namespace qkv::train {

AttentionShape AttentionShape::forTying(const AttentionTying& tying, int sequences, int length,
                                        int heads, int headDim) {
    const int d = heads * headDim;
    const auto& slot = tying.slotSource;
    return {sequences,         length,      heads,       headDim,
            tying.sources * d, slot[0] * d, slot[1] * d, slot[2] * d};
}

// Each (sequence, head) pair is independent: the pool splits those pairs, and each pair's
// products run single-threaded.
template <typename T>
void attentionForward(ThreadPool& pool, const AttentionShape& s, const T* p, T* probs, T* out) {
    const int n = s.length, dk = s.headDim, ld = s.projectionStride, width = s.width();
    const T scale = T(1) / std::sqrt(static_cast<T>(dk));
    pool.parallelFor(s.sequences * s.heads, [&](int, int begin, int end) {
        for (int unit = begin; unit < end; ++unit) {
            const int b = unit / s.heads, h = unit % s.heads;
            const T* rows = p + static_cast<long>(b) * n * ld;
            const T* q = rows + s.qColumn + h * dk;
            const T* k = rows + s.kColumn + h * dk;
            const T* v = rows + s.vColumn + h * dk;
            T* a = probs + static_cast<long>(unit) * n * n;
            gemm<T>({false, true, n, n, dk}, scale, q, ld, k, ld, T(0), a, n);
            for (int i = 0; i < n; ++i) {
                T* row = a + static_cast<long>(i) * n;
                T maxValue = row[0];
                for (int j = 1; j <= i; ++j) maxValue = std::max(maxValue, row[j]);
                T sum = 0;
                for (int j = 0; j <= i; ++j) {
                    row[j] = expOf(row[j] - maxValue);
                    sum += row[j];
                }
                const T inv = T(1) / sum;
                for (int j = 0; j <= i; ++j) row[j] *= inv;
                std::fill(row + i + 1, row + n, T(0));
            }
            gemm<T>({false, false, n, dk, n}, T(1), a, n, v, ld, T(0),
                    out + static_cast<long>(b) * n * width + h * dk, width);
        }
    });
}

template <typename T>
void attentionBackward(ThreadPool& pool, const AttentionShape& s, const T* p, const T* probs,
                       const T* dOut, T* dp) {
    const int n = s.length, dk = s.headDim, ld = s.projectionStride, width = s.width();
    const T scale = T(1) / std::sqrt(static_cast<T>(dk));
    pool.parallelFor(s.sequences * s.heads, [&](int, int begin, int end) {
        std::vector<T> dScores(static_cast<size_t>(n) * n);
        for (int unit = begin; unit < end; ++unit) {
            const int b = unit / s.heads, h = unit % s.heads;
            const long rowOffset = static_cast<long>(b) * n * ld;
            const T* q = p + rowOffset + s.qColumn + h * dk;
            const T* k = p + rowOffset + s.kColumn + h * dk;
            const T* v = p + rowOffset + s.vColumn + h * dk;
            T* dq = dp + rowOffset + s.qColumn + h * dk;
            T* dkey = dp + rowOffset + s.kColumn + h * dk;
            T* dv = dp + rowOffset + s.vColumn + h * dk;
            const T* a = probs + static_cast<long>(unit) * n * n;
            const T* dO = dOut + static_cast<long>(b) * n * width + h * dk;

            // dV += A^T dO; dA = dO V^T.
            gemm<T>({true, false, n, dk, n}, T(1), a, n, dO, width, T(1), dv, ld);
            T* ds = dScores.data();
            gemm<T>({false, true, n, n, dk}, T(1), dO, width, v, ld, T(0), ds, n);
            // Softmax backward: dS = A * (dA - sum_j dA_j A_j), times the score scale.
            for (int i = 0; i < n; ++i) {
                const T* ai = a + static_cast<long>(i) * n;
                T* row = ds + static_cast<long>(i) * n;
                T dot = 0;
                for (int j = 0; j <= i; ++j) dot += row[j] * ai[j];
                for (int j = 0; j <= i; ++j) row[j] = ai[j] * (row[j] - dot) * scale;
                std::fill(row + i + 1, row + n, T(0));
            }
            // dQ += dS K; dK += dS^T Q.
            gemm<T>({false, false, n, dk, n}, T(1), ds, n, k, ld, T(1), dq, ld);
            gemm<T>({true, false, n, dk, n}, T(1), ds, n, q, ld, T(1), dkey, ld);
        }
    });
}

template void attentionForward<float>(ThreadPool&, const AttentionShape&, const float*, float*,
                                      float*);
template void attentionForward<double>(ThreadPool&, const AttentionShape&, const double*, double*,
                                       double*);
template void attentionBackward<float>(ThreadPool&, const AttentionShape&, const float*,
                                       const float*, const float*, float*);
template void attentionBackward<double>(ThreadPool&, const AttentionShape&, const double*,
                                        const double*, const double*, double*);

}  // namespace qkv::train
