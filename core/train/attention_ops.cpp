#include "core/train/attention_ops.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "core/backend/gemm.h"
#include "core/train/fast_math.h"

namespace qkv::train {
namespace {

// Reformer's unit keys are k / sqrt(|k|^2 + eps): a zero key stays zero instead of dividing by 0.
constexpr double kUnitKeyEps = 1e-12;

template <typename T>
T preScale(const AttentionShape& s) {
    return s.scaleOutside ? T(1) : T(1) / std::sqrt(static_cast<T>(s.headDim));
}
template <typename T>
T postScale(const AttentionShape& s) {
    return s.scaleOutside ? T(1) / std::sqrt(static_cast<T>(s.headDim)) : T(1);
}

// Row i may see keys 0..i, without i itself under maskSelf unless i == 0.
bool masked(const AttentionShape& s, int i, int j) { return s.maskSelf && i > 0 && j == i; }

// A head's keys as the scores read them: the block of P, or unit-length copies of its rows (in
// `scratch`, with each row's 1 / |k| in `inverseNorms`) for Reformer.
template <typename T>
const T* headKeys(const AttentionShape& s, const T* k, std::vector<T>& scratch,
                  std::vector<T>& inverseNorms, int& ld) {
    ld = s.projectionStride;
    if (!s.unitKeys) return k;
    const int n = s.length, dk = s.scoreDim;
    scratch.resize(static_cast<size_t>(n) * dk);
    inverseNorms.resize(n);
    for (int j = 0; j < n; ++j) {
        const T* row = k + static_cast<long>(j) * s.projectionStride;
        T squares = 0;
        for (int c = 0; c < dk; ++c) squares += row[c] * row[c];
        inverseNorms[j] = T(1) / std::sqrt(squares + static_cast<T>(kUnitKeyEps));
        for (int c = 0; c < dk; ++c)
            scratch[static_cast<size_t>(j) * dk + c] = row[c] * inverseNorms[j];
    }
    ld = dk;
    return scratch.data();
}

// Units of parallel work: (sequence, head) pairs, or whole sequences when all heads share one
// key block (their key gradients land in the same columns).
int headsPerUnit(const AttentionShape& s) { return s.keyHeadStride == 0 ? s.heads : 1; }

}  // namespace

AttentionShape AttentionShape::forTying(const AttentionTying& tying, int sequences, int length,
                                        int heads, int headDim) {
    const int d = heads * headDim;
    AttentionShape s;
    s.sequences = sequences;
    s.length = length;
    s.heads = heads;
    s.headDim = headDim;
    s.scaleOutside = tying.scaleOutside;
    s.unitKeys = s.maskSelf = tying.reformer;
    if (tying.fullBilinear) {
        s.scoreDim = d;
        s.projectionStride = heads * d + 2 * d;
        s.qColumn = 0;
        s.vColumn = heads * d;
        s.kColumn = heads * d + d;
        s.keyHeadStride = 0;
        return s;
    }
    const auto& slot = tying.slotSource;
    s.scoreDim = s.keyHeadStride = headDim;
    s.projectionStride = tying.sources * d;
    s.qColumn = slot[0] * d;
    s.kColumn = slot[1] * d;
    s.vColumn = slot[2] * d;
    return s;
}

// Each unit is independent: the pool splits the units, and each unit's products run
// single-threaded.
template <typename T>
void attentionForward(ThreadPool& pool, const AttentionShape& s, const T* p, T* probs, T* out) {
    const int n = s.length, dq = s.scoreDim, dv = s.headDim, ld = s.projectionStride;
    const int width = s.width(), group = headsPerUnit(s);
    const T pre = preScale<T>(s), post = postScale<T>(s);
    pool.parallelFor(s.sequences * s.heads / group, [&](int, int begin, int end) {
        std::vector<T> unitKeys, inverseNorms;
        for (int unit = begin * group; unit < end * group; ++unit) {
            const int b = unit / s.heads, h = unit % s.heads;
            const T* rows = p + static_cast<long>(b) * n * ld;
            const T* q = rows + s.qColumn + h * dq;
            int kld = 0;
            const T* k =
                headKeys(s, rows + s.kColumn + h * s.keyHeadStride, unitKeys, inverseNorms, kld);
            const T* v = rows + s.vColumn + h * dv;
            T* a = probs + static_cast<long>(unit) * n * n;
            gemm<T>({false, true, n, n, dq}, pre, q, ld, k, kld, T(0), a, n);
            for (int i = 0; i < n; ++i) {
                T* row = a + static_cast<long>(i) * n;
                T maxValue = -INFINITY;
                for (int j = 0; j <= i; ++j)
                    if (!masked(s, i, j)) maxValue = std::max(maxValue, row[j]);
                T sum = 0;
                for (int j = 0; j <= i; ++j) {
                    row[j] = masked(s, i, j) ? T(0) : expOf(row[j] - maxValue);
                    sum += row[j];
                }
                const T scale = post / sum;
                for (int j = 0; j <= i; ++j) row[j] *= scale;
                std::fill(row + i + 1, row + n, T(0));
            }
            gemm<T>({false, false, n, dv, n}, T(1), a, n, v, ld, T(0),
                    out + static_cast<long>(b) * n * width + h * dv, width);
        }
    });
}

template <typename T>
void attentionBackward(ThreadPool& pool, const AttentionShape& s, const T* p, const T* probs,
                       const T* dOut, T* dp) {
    const int n = s.length, dq = s.scoreDim, dv = s.headDim, ld = s.projectionStride;
    const int width = s.width(), group = headsPerUnit(s);
    const T pre = preScale<T>(s), post = postScale<T>(s);
    pool.parallelFor(s.sequences * s.heads / group, [&](int, int begin, int end) {
        std::vector<T> dScores(static_cast<size_t>(n) * n);
        std::vector<T> unitKeys, inverseNorms, dUnitKeys;
        for (int unit = begin * group; unit < end * group; ++unit) {
            const int b = unit / s.heads, h = unit % s.heads;
            const long rowOffset = static_cast<long>(b) * n * ld;
            const T* q = p + rowOffset + s.qColumn + h * dq;
            const T* rawKeys = p + rowOffset + s.kColumn + h * s.keyHeadStride;
            int kld = 0;
            const T* k = headKeys(s, rawKeys, unitKeys, inverseNorms, kld);
            const T* v = p + rowOffset + s.vColumn + h * dv;
            T* dquery = dp + rowOffset + s.qColumn + h * dq;
            T* dkey = dp + rowOffset + s.kColumn + h * s.keyHeadStride;
            T* dvalue = dp + rowOffset + s.vColumn + h * dv;
            const T* a = probs + static_cast<long>(unit) * n * n;
            const T* dO = dOut + static_cast<long>(b) * n * width + h * dv;

            // dV += A^T dO; dA = dO V^T.
            gemm<T>({true, false, n, dv, n}, T(1), a, n, dO, width, T(1), dvalue, ld);
            T* ds = dScores.data();
            gemm<T>({false, true, n, n, dv}, T(1), dO, width, v, ld, T(0), ds, n);
            // A = post * softmax(pre * QK^T): dS = pre * A * (dA - sum_j dA_j A_j / post).
            for (int i = 0; i < n; ++i) {
                const T* ai = a + static_cast<long>(i) * n;
                T* row = ds + static_cast<long>(i) * n;
                T dot = 0;
                for (int j = 0; j <= i; ++j) dot += row[j] * ai[j];
                dot /= post;
                for (int j = 0; j <= i; ++j) row[j] = ai[j] * (row[j] - dot) * pre;
                std::fill(row + i + 1, row + n, T(0));
            }
            // dQ += dS K; dK += dS^T Q (through the normalisation for unit keys:
            // d raw k = (dk - k (k . dk)) / |raw k|).
            gemm<T>({false, false, n, dq, n}, T(1), ds, n, k, kld, T(1), dquery, ld);
            if (!s.unitKeys) {
                gemm<T>({true, false, n, dq, n}, T(1), ds, n, q, ld, T(1), dkey, ld);
                continue;
            }
            dUnitKeys.assign(static_cast<size_t>(n) * dq, T(0));
            gemm<T>({true, false, n, dq, n}, T(1), ds, n, q, ld, T(0), dUnitKeys.data(), dq);
            for (int j = 0; j < n; ++j) {
                const T* unitKey = k + static_cast<long>(j) * dq;
                const T* g = dUnitKeys.data() + static_cast<long>(j) * dq;
                T along = 0;
                for (int c = 0; c < dq; ++c) along += unitKey[c] * g[c];
                T* target = dkey + static_cast<long>(j) * ld;
                for (int c = 0; c < dq; ++c)
                    target[c] += (g[c] - unitKey[c] * along) * inverseNorms[j];
            }
        }
    });
}

template <typename T>
double attentionEntropySum(const AttentionShape& s, const T* probs, long& rows) {
    const int n = s.length;
    const double post = postScale<double>(s);
    double total = 0.0;
    for (long unit = 0; unit < static_cast<long>(s.sequences) * s.heads; ++unit)
        for (int i = 0; i < n; ++i) {
            const T* row = probs + (unit * n + i) * n;
            for (int j = 0; j <= i; ++j) {
                const double a = row[j] / post;
                if (a > 0) total -= a * std::log(a);
            }
        }
    rows += static_cast<long>(s.sequences) * s.heads * n;
    return total;
}

#define QKV_INSTANTIATE(T)                                                                     \
    template void attentionForward<T>(ThreadPool&, const AttentionShape&, const T*, T*, T*);   \
    template void attentionBackward<T>(ThreadPool&, const AttentionShape&, const T*, const T*, \
                                       const T*, T*);                                          \
    template double attentionEntropySum<T>(const AttentionShape&, const T*, long&);
QKV_INSTANTIATE(float)
QKV_INSTANTIATE(double)
#undef QKV_INSTANTIATE

}  // namespace qkv::train
