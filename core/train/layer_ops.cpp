#include "core/train/layer_ops.h"

#include <cmath>
#include <cstring>
#include <vector>

#include "core/backend/gemm.h"
#include "core/train/fast_math.h"

namespace qkv::train {
namespace {

// Column sums of a rows x cols matrix added into `sums`, in a fixed order: per-chunk partial
// sums, then the chunks in order.
template <typename T>
void addColumnSums(ThreadPool& pool, int rows, int cols, T* sums,
                   const std::function<void(int row, T* partial)>& addRow) {
    std::vector<T> partial(static_cast<size_t>(pool.chunks(rows)) * cols, T(0));
    pool.parallelFor(rows, [&](int chunk, int begin, int end) {
        T* p = partial.data() + static_cast<size_t>(chunk) * cols;
        for (int r = begin; r < end; ++r) addRow(r, p);
    });
    for (int c = 0; c < pool.chunks(rows); ++c)
        for (int j = 0; j < cols; ++j) sums[j] += partial[static_cast<size_t>(c) * cols + j];
}

constexpr double kSqrt2OverPi = 0.7978845608028654;
constexpr double kGeluCubic = 0.044715;

}  // namespace

template <typename T>
void linearForward(ThreadPool& pool, const T* x, int rows, int in, const T* w, const T* b, int out,
                   T* y) {
    pool.parallelFor(rows, [&](int, int begin, int end) {
        for (int r = begin; r < end; ++r)
            std::memcpy(y + static_cast<size_t>(r) * out, b, sizeof(T) * out);
    });
    parallelGemm<T>(pool, {false, false, rows, out, in}, T(1), x, in, w, out, T(1), y, out);
}

template <typename T>
void linearBackward(ThreadPool& pool, const T* x, const T* dy, int rows, int in, int out,
                    const T* w, T* dx, T* dw, T* db) {
    parallelGemm<T>(pool, {true, false, in, out, rows}, T(1), x, in, dy, out, T(1), dw, out);
    addColumnSums<T>(pool, rows, out, db, [&](int r, T* partial) {
        const T* row = dy + static_cast<size_t>(r) * out;
        for (int j = 0; j < out; ++j) partial[j] += row[j];
    });
    if (dx)
        parallelGemm<T>(pool, {false, true, rows, in, out}, T(1), dy, out, w, out, T(0), dx, in);
}

template <typename T>
void layerNormForward(ThreadPool& pool, const T* x, const T* gamma, const T* beta, int rows,
                      int cols, T eps, T* y, T* mean, T* rstd) {
    pool.parallelFor(rows, [&](int, int begin, int end) {
        for (int r = begin; r < end; ++r) {
            const T* in = x + static_cast<size_t>(r) * cols;
            T* o = y + static_cast<size_t>(r) * cols;
            // Statistics in double, as the inference backend computes them.
            double m = 0.0;
            for (int i = 0; i < cols; ++i) m += in[i];
            m /= cols;
            double v = 0.0;
            for (int i = 0; i < cols; ++i) v += (in[i] - m) * (in[i] - m);
            v /= cols;
            const T s = static_cast<T>(1.0 / std::sqrt(v + eps));
            const T mu = static_cast<T>(m);
            for (int i = 0; i < cols; ++i) o[i] = (in[i] - mu) * s * gamma[i] + beta[i];
            mean[r] = mu;
            rstd[r] = s;
        }
    });
}

template <typename T>
void layerNormBackward(ThreadPool& pool, const T* dy, const T* x, const T* gamma, const T* mean,
                       const T* rstd, int rows, int cols, T* dx, T* dgamma, T* dbeta) {
    // d xhat = dy * gamma; dx = rstd * (dxhat - mean(dxhat) - xhat * mean(dxhat * xhat)).
    pool.parallelFor(rows, [&](int, int begin, int end) {
        for (int r = begin; r < end; ++r) {
            const T* g = dy + static_cast<size_t>(r) * cols;
            const T* in = x + static_cast<size_t>(r) * cols;
            T* out = dx + static_cast<size_t>(r) * cols;
            T sumD = 0, sumDX = 0;
            for (int i = 0; i < cols; ++i) {
                const T xhat = (in[i] - mean[r]) * rstd[r];
                const T d = g[i] * gamma[i];
                sumD += d;
                sumDX += d * xhat;
            }
            const T meanD = sumD / cols, meanDX = sumDX / cols;
            for (int i = 0; i < cols; ++i) {
                const T xhat = (in[i] - mean[r]) * rstd[r];
                out[i] += rstd[r] * (g[i] * gamma[i] - meanD - xhat * meanDX);
            }
        }
    });
    std::vector<T> both(2 * static_cast<size_t>(cols), T(0));
    addColumnSums<T>(pool, rows, 2 * cols, both.data(), [&](int r, T* partial) {
        const T* g = dy + static_cast<size_t>(r) * cols;
        const T* in = x + static_cast<size_t>(r) * cols;
        for (int i = 0; i < cols; ++i) {
            partial[i] += g[i] * (in[i] - mean[r]) * rstd[r];
            partial[cols + i] += g[i];
        }
    });
    for (int i = 0; i < cols; ++i) {
        dgamma[i] += both[i];
        dbeta[i] += both[cols + i];
    }
}

template <typename T>
void geluForward(ThreadPool& pool, const T* x, T* y, std::size_t n) {
    pool.parallelFor(static_cast<int>(n), [&](int, int begin, int end) {
        for (int i = begin; i < end; ++i) {
            const T v = x[i];
            y[i] = T(0.5) * v * (T(1) + tanhOf(T(kSqrt2OverPi) * (v + T(kGeluCubic) * v * v * v)));
        }
    });
}

template <typename T>
void geluBackward(ThreadPool& pool, const T* x, const T* dy, T* dx, std::size_t n) {
    pool.parallelFor(static_cast<int>(n), [&](int, int begin, int end) {
        for (int i = begin; i < end; ++i) {
            const T v = x[i];
            const T t = tanhOf(T(kSqrt2OverPi) * (v + T(kGeluCubic) * v * v * v));
            const T du = T(kSqrt2OverPi) * (T(1) + T(3 * kGeluCubic) * v * v);
            dx[i] = dy[i] * (T(0.5) * (T(1) + t) + T(0.5) * v * (T(1) - t * t) * du);
        }
    });
}

template <typename T>
void embedForward(ThreadPool& pool, const T* wte, const T* wpe, const int* ids, int sequences,
                  int length, int d, T* x) {
    pool.parallelFor(sequences * length, [&](int, int begin, int end) {
        for (int r = begin; r < end; ++r) {
            const T* tok = wte + static_cast<size_t>(ids[r]) * d;
            const T* pos = wpe + static_cast<size_t>(r % length) * d;
            T* out = x + static_cast<size_t>(r) * d;
            for (int j = 0; j < d; ++j) out[j] = tok[j] + pos[j];
        }
    });
}

template <typename T>
void embedBackward(ThreadPool& pool, const T* dx, const int* ids, int sequences, int length, int d,
                   T* dwte, T* dwpe) {
    // Split by columns: every thread owns a column range of the tables, so no two threads add to
    // the same element and the order of additions is fixed.
    pool.parallelFor(d, [&](int, int begin, int end) {
        for (int r = 0; r < sequences * length; ++r) {
            const T* g = dx + static_cast<size_t>(r) * d;
            T* tok = dwte + static_cast<size_t>(ids[r]) * d;
            T* pos = dwpe + static_cast<size_t>(r % length) * d;
            for (int j = begin; j < end; ++j) {
                tok[j] += g[j];
                pos[j] += g[j];
            }
        }
    });
}

#define QKV_INSTANTIATE(T)                                                                         \
    template void linearForward<T>(ThreadPool&, const T*, int, int, const T*, const T*, int, T*);  \
    template void linearBackward<T>(ThreadPool&, const T*, const T*, int, int, int, const T*, T*,  \
                                    T*, T*);                                                       \
    template void layerNormForward<T>(ThreadPool&, const T*, const T*, const T*, int, int, T, T*,  \
                                      T*, T*);                                                     \
    template void layerNormBackward<T>(ThreadPool&, const T*, const T*, const T*, const T*,        \
                                       const T*, int, int, T*, T*, T*);                            \
    template void geluForward<T>(ThreadPool&, const T*, T*, std::size_t);                          \
    template void geluBackward<T>(ThreadPool&, const T*, const T*, T*, std::size_t);               \
    template void embedForward<T>(ThreadPool&, const T*, const T*, const int*, int, int, int, T*); \
    template void embedBackward<T>(ThreadPool&, const T*, const int*, int, int, int, T*, T*);
QKV_INSTANTIATE(float)
QKV_INSTANTIATE(double)
#undef QKV_INSTANTIATE

}  // namespace qkv::train
