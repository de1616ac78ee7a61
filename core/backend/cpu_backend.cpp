// CPU backend: row-major host tensors; GEMMs through OpenBLAS (cblas_sgemm) run single-threaded
// per block on the backend's own thread pool, which also takes the per-head attention and the
// element-wise work (OpenBLAS's threads would spin between calls and take the pool's cores).
#include <Eigen/Core>
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <exception>
#include <limits>
#include <mutex>
#include <new>
#include <thread>
#include <vector>

#include "core/backend/backend.h"
#include "core/backend/compact_gemm.h"
#include "core/backend/cpu_activations.h"
#include "core/backend/cpu_attention.h"
#include "core/backend/cpu_mixers.h"
#include "core/backend/gemm.h"
#include "core/backend/op_shapes.h"
#include "core/backend/read_ahead.h"
#include "core/util/aligned_floats.h"
#include "core/util/error.h"
#include "core/util/thread_pool.h"

namespace qkv {
namespace {

std::atomic<int> g_threads{0};  // 0: every core

// Either owns row-major storage (activations) or views host memory with any layout (weights).
// Owned storage is left uninitialised (every op overwrites its whole output) and starts on a
// cache line (alignedFloats), wherever the allocating thread's malloc arena happens to be:
// OpenBLAS's vector kernels split a row into an unaligned head and an aligned body, so the
// address would decide the order of a dot product's sums, and with it the last bits of the
// result, from run to run.
class CpuTensor final : public Tensor {
  public:
    CpuTensor(int rows, int cols)
        : Tensor(rows, cols),
          m_storage(alignedFloats(static_cast<size_t>(rows) * cols)),
          m_view{m_storage.get(), rows, cols, cols, 1} {}
    explicit CpuTensor(const MatrixView& view) : Tensor(view.rows, view.cols), m_view(view) {}

    const MatrixView& view() const { return m_view; }
    float* data() { return m_storage.get(); }              // owning tensors only
    const float* data() const { return m_view.floats(); }  // float32 tensors only
    bool contiguous() const { return m_view.colStride == 1 && m_view.rowStride == m_view.cols; }

  private:
    AlignedFloats m_storage;
    MatrixView m_view;
};

const CpuTensor& cpu(const Tensor& t) { return static_cast<const CpuTensor&>(t); }
CpuTensor& cpu(Tensor& t) { return static_cast<CpuTensor&>(t); }

// Below this many elements (or rows of a norm) waking the pool costs more than it saves.
constexpr int kElementGrain = 16384;
constexpr int kRowGrain = 16;

// A row's mean and (biased) variance, summed in double.
std::pair<double, double> rowMoments(const float* in, int n) {
    double mean = 0.0;
    for (int i = 0; i < n; ++i) mean += in[i];
    mean /= n;
    double var = 0.0;
    for (int i = 0; i < n; ++i) var += (in[i] - mean) * (in[i] - mean);
    return {mean, var / n};
}

class CpuBackend final : public Backend {
  public:
    explicit CpuBackend(int threads) : m_pool(threads) {
        useSingleThreadedBlas();
        if (threads > 1)
            for (int t = 0; t < threads; ++t)
                m_itemBackends.push_back(std::make_unique<CpuBackend>(1));
    }
    std::string name() const override { return "cpu"; }

    std::unique_ptr<Tensor> create(int rows, int cols) override {
        return std::make_unique<CpuTensor>(rows, cols);
    }
    std::unique_ptr<Tensor> upload(const float* rowMajor, int rows, int cols) override {
        auto t = std::make_unique<CpuTensor>(rows, cols);
        std::memcpy(t->data(), rowMajor, sizeof(float) * rows * cols);
        return t;
    }
    std::unique_ptr<Tensor> weight(const MatrixView& w) override {
        if (w.colStride != 1 && w.rowStride != 1)
            throw Error("internal error: weight view needs unit row or column stride");
        return std::make_unique<CpuTensor>(w);
    }
    std::unique_ptr<Tensor> vector(const VectorView& v) override {
        return std::make_unique<CpuTensor>(MatrixView::rowMajor(v.data, 1, v.size));
    }
    void prefetch(const Tensor& weight) override { readAheadStorage(cpu(weight).view()); }
    // Few tokens per expert make each product too small to share well between threads (each
    // call waits for all of them): whole items, one per thread, instead.
    void forEachItem(int count, const std::function<void(Backend&, int)>& fn) override {
        if (m_itemBackends.empty() || count < 2) return Backend::forEachItem(count, fn);
        std::atomic<bool> failed{false};  // the items left are skipped
        std::exception_ptr failure;
        std::mutex failureMutex;
        m_pool.forEachItem(count, [&](int item, int thread) {
            if (failed) return;
            try {
                fn(*m_itemBackends[thread], item);
            } catch (...) {
                std::lock_guard lock(failureMutex);
                if (!failure) failure = std::current_exception();
                failed = true;
            }
        });
        if (failure) std::rethrow_exception(failure);
    }
    void download(const Tensor& t, float* rowMajor) override {
        const MatrixView& v = cpu(t).view();
        if (cpu(t).contiguous() && v.isFloat32()) {  // rows in parallel: page faults dominate
            split(v.rows, kElementGrain / v.cols + 1, [&](int first, int last) {
                std::memcpy(rowMajor + static_cast<size_t>(first) * v.cols,
                            v.floats() + static_cast<size_t>(first) * v.cols,
                            sizeof(float) * (last - first) * v.cols);
            });
            return;
        }
        for (int r = 0; r < v.rows; ++r)
            for (int c = 0; c < v.cols; ++c) rowMajor[r * v.cols + c] = v.at(r, c);
    }
    void synchronize() override {}

    void linear(const Tensor& x, const Tensor& w, const Tensor* bias, Tensor& y) override {
        m_shapes.linear(x, w, bias, y);
        float* out = cpu(y).data();
        const int cols = y.cols();
        float beta = 0.0f;
        if (bias) {
            const float* b = cpu(*bias).data();
            split(y.rows(), kElementGrain / cols + 1, [&](int first, int last) {
                for (int r = first; r < last; ++r)
                    std::memcpy(out + static_cast<size_t>(r) * cols, b, sizeof(float) * cols);
            });
            beta = 1.0f;
        }
        const MatrixView& weight = cpu(w).view();
        if (weight.isFloat32())
            gemmOfViews(&m_pool, cpu(x).view(), weight, 1.0f, beta, out, cols);
        else  // F16, BF16, MXFP4: widened panel by panel
            compactGemm(m_pool, cpu(x).data(), x.cols(), x.rows(), weight, beta, out, cols);
    }

    void layerNorm(const Tensor& x, const Tensor& gamma, const Tensor* beta, float eps,
                   Tensor& y) override {
        m_shapes.layerNorm(x, gamma, beta, y);
        const int n = x.cols();
        const float* g = cpu(gamma).data();
        const float* b = beta ? cpu(*beta).data() : nullptr;
        split(x.rows(), kRowGrain, [&](int first, int last) {
            for (int r = first; r < last; ++r) {
                const float* in = cpu(x).data() + r * n;
                float* out = cpu(y).data() + r * n;
                const auto [mean, var] = rowMoments(in, n);
                const float inv = static_cast<float>(1.0 / std::sqrt(var + eps));
                const float m = static_cast<float>(mean);
                for (int i = 0; i < n; ++i) out[i] = (in[i] - m) * inv * g[i] + (b ? b[i] : 0.0f);
            }
        });
    }

    void gaussianTopK(const Tensor& x, float z, Tensor& y) override {
        m_shapes.gaussianTopK(x, y);
        const int n = x.cols();
        split(x.rows(), kRowGrain, [&](int first, int last) {
            for (int r = first; r < last; ++r) {
                const float* in = cpu(x).data() + r * n;
                float* out = cpu(y).data() + r * n;
                const auto [mean, var] = rowMoments(in, n);
                const float cutoff =
                    static_cast<float>(mean) + static_cast<float>(std::sqrt(var)) * z;
                for (int i = 0; i < n; ++i) out[i] = std::max(in[i] - cutoff, 0.0f);
            }
        });
    }

    void rmsNorm(const Tensor& x, const Tensor& gamma, float eps, Tensor& y) override {
        m_shapes.rmsNorm(x, gamma, y);
        rmsNormBlocks(x, x.cols(), gamma, eps, y);
    }

    void rmsNormHeads(const Tensor& x, int headDim, const Tensor& gamma, float eps,
                      Tensor& y) override {
        m_shapes.rmsNormHeads(x, headDim, gamma, y);
        rmsNormBlocks(x, headDim, gamma, eps, y);
    }

    // RMSNorm of every `width`-wide block of the row-major data, each scaled by gamma.
    void rmsNormBlocks(const Tensor& x, int width, const Tensor& gamma, float eps, Tensor& y) {
        // A gamma as wide as a row scales each of its blocks by its own part.
        const int gammaBlocks = gamma.rows() * gamma.cols() == x.cols() ? x.cols() / width : 1;
        const int blocks = static_cast<int>(static_cast<std::int64_t>(x.rows()) * x.cols() / width);
        split(blocks, kRowGrain, [&](int first, int last) {
            for (int r = first; r < last; ++r) {
                const float* in = cpu(x).data() + static_cast<size_t>(r) * width;
                float* out = cpu(y).data() + static_cast<size_t>(r) * width;
                const float* g = cpu(gamma).data() + (r % gammaBlocks) * width;
                double sumSquares = 0.0;
                for (int i = 0; i < width; ++i) sumSquares += static_cast<double>(in[i]) * in[i];
                const float inv = static_cast<float>(1.0 / std::sqrt(sumSquares / width + eps));
                for (int i = 0; i < width; ++i) out[i] = g[i] * (in[i] * inv);
            }
        });
    }

    // Element-wise work goes through Eigen arrays, whose tanh/exp/erf are vectorised.
    void activate(Tensor& x, Activation activation) override {
        m_shapes.activate(activation);
        splitElements(x, [&](ArrayMap a) { activateInPlace(a, activation); });
    }

    void xielu(Tensor& x, const XIeluParameters& parameters) override {
        splitElements(x, [&](ArrayMap a) { xieluInPlace(a, parameters); });
    }

    void glu(const Tensor& gate, Tensor& up, Activation gated) override {
        m_shapes.glu(gate, up, gated);
        const float* g = cpu(gate).data();
        splitElements(up, [&](ArrayMap u) {
            gateInPlace(ConstArrayMap(g + (u.data() - cpu(up).data()), u.size()), u, gated);
        });
    }

    void clampedSwiGlu(const Tensor& gateUp, Tensor& out) override {
        m_shapes.clampedSwiGlu(gateUp, out);
        const float* pairs = cpu(gateUp).data();
        split(out.rows(), kElementGrain / std::max(out.cols(), 1) + 1, [&](int first, int last) {
            const size_t begin = static_cast<size_t>(first) * out.cols();
            const size_t end = static_cast<size_t>(last) * out.cols();
            float* y = cpu(out).data();
            for (size_t i = begin; i < end; ++i)
                y[i] = clampedSwiGluOf(pairs[2 * i], pairs[2 * i + 1]);
        });
    }

    void add(Tensor& accumulator, const Tensor& x) override {
        m_shapes.add(accumulator, x);
        const float* in = cpu(x).data();
        splitElements(accumulator, [&](ArrayMap a) {
            a += ConstArrayMap(in + (a.data() - cpu(accumulator).data()), a.size());
        });
    }

    void rope(const Tensor& x, int headDim, const RotaryFrequencies& frequencies, int firstPosition,
              Tensor& y) override {
        const int rotaryDims = frequencies.rotaryDims();
        m_shapes.rope(x, headDim, rotaryDims, firstPosition, y);
        const int half = rotaryDims / 2;
        const int cols = x.cols();
        for (int row = 0; row < x.rows(); ++row) {
            const int pos = firstPosition + row;
            const float* in = cpu(x).data() + static_cast<size_t>(row) * cols;
            float* out = cpu(y).data() + static_cast<size_t>(row) * cols;
            for (int h = 0; h < cols; h += headDim)  // dimensions past rotaryDims pass through
                std::copy(in + h + rotaryDims, in + h + headDim, out + h + rotaryDims);
            for (int i = 0; i < half; ++i) {
                // HF computes the angle in float32 before cos/sin; match it.
                const float angle = static_cast<float>(pos) * frequencies.inverse[i];
                const float c = std::cos(angle) * frequencies.scale;
                const float s = std::sin(angle) * frequencies.scale;
                // The pair's two dimensions: (i, i + half), or (2i, 2i + 1) interleaved.
                const int first = frequencies.interleaved ? 2 * i : i;
                const int second = frequencies.interleaved ? 2 * i + 1 : i + half;
                for (int h = 0; h < cols; h += headDim) {
                    const float a = in[h + first], b = in[h + second];
                    out[h + first] = a * c - b * s;
                    out[h + second] = b * c + a * s;
                }
            }
        }
    }

    void normalizeHeads(const Tensor& x, int headDim, float eps, Tensor& y) override {
        m_shapes.normalizeHeads(x, headDim, y);
        const int cols = x.cols();
        split(x.rows(), kRowGrain, [&](int first, int last) {
            for (int r = first; r < last; ++r)
                for (int h = 0; h < cols; h += headDim) {
                    const float* in = cpu(x).data() + r * cols + h;
                    float* out = cpu(y).data() + r * cols + h;
                    double sumSquares = 0.0;
                    for (int i = 0; i < headDim; ++i)
                        sumSquares += static_cast<double>(in[i]) * in[i];
                    const float inv = static_cast<float>(1.0 / std::sqrt(sumSquares + eps));
                    for (int i = 0; i < headDim; ++i) out[i] = in[i] * inv;
                }
        });
    }

    void copyRows(const Tensor& source, int first, int count, Tensor& destination,
                  int destinationFirst) override {
        m_shapes.copyRows(source, first, count, destination, destinationFirst);
        const size_t cols = source.cols();
        std::memcpy(cpu(destination).data() + destinationFirst * cols,
                    cpu(source).data() + first * cols, sizeof(float) * count * cols);
    }

    void gatherRows(const Tensor& source, const std::vector<int>& rows,
                    Tensor& destination) override {
        m_shapes.gatherRows(source, rows, destination);
        const size_t cols = source.cols();
        for (size_t i = 0; i < rows.size(); ++i)
            std::memcpy(cpu(destination).data() + i * cols, cpu(source).data() + rows[i] * cols,
                        sizeof(float) * cols);
    }

    void addWeightedRows(const Tensor& source, const std::vector<int>& rows,
                         const std::vector<float>& weights, Tensor& destination) override {
        m_shapes.addWeightedRows(source, rows, weights, destination);
        const size_t cols = source.cols();
        for (size_t i = 0; i < rows.size(); ++i) {
            float* to = cpu(destination).data() + rows[i] * cols;
            const float* from = cpu(source).data() + i * cols;
            for (size_t j = 0; j < cols; ++j) to[j] += weights[i] * from[j];
        }
    }

    void gatherColumns(const Tensor& first, const Tensor* second, const std::vector<int>& columns,
                       Tensor& destination) override {
        m_shapes.gatherColumns(first, second, columns, destination);
        const int rows = first.rows(), width = first.cols(), cols = destination.cols();
        for (int r = 0; r < rows; ++r) {
            float* to = cpu(destination).data() + static_cast<size_t>(r) * cols;
            for (int j = 0; j < cols; ++j) {
                const int c = columns[j];
                to[j] = c < width
                            ? cpu(first).data()[static_cast<size_t>(r) * width + c]
                            : cpu(*second)
                                  .data()[static_cast<size_t>(r) * second->cols() + (c - width)];
            }
        }
    }

    void attention(const Tensor& q, const Tensor& k, const Tensor& v, const AttentionLayout& layout,
                   const AttentionOptions& options, Tensor& out,
                   const AttentionCapture* capture) override {
        const int n = q.rows(), keys = k.rows();
        m_shapes.require(v.rows() == keys && out.rows() == n - options.firstQuery &&
                             out.cols() == layout.heads * layout.valueWidth() &&
                             attentionShapeAllowed(options, n, keys, layout.heads),
                         "attention");
        const CpuAttentionOperands operands{
            cpu(q).data(),
            q.cols(),
            cpu(k).data(),
            k.cols(),
            cpu(v).data(),
            v.cols(),
            n,
            keys,
            cpu(out).data(),
            options.positionBias ? cpu(*options.positionBias).data() : nullptr,
            options.positionBias && options.positionBias->rows() == n,
            options.sinks ? cpu(*options.sinks).data() : nullptr};
        cpuAttention(m_pool, operands, layout, options, capture);
    }

    void causalConv(const Tensor& x, const Tensor& taps, const Tensor* bias, Tensor& y) override {
        m_shapes.causalConv(x, taps, bias, y);
        cpuCausalConv(m_pool, cpu(x).data(), x.rows(), x.cols(), cpu(taps).data(),
                      taps.rows() * taps.cols() / x.cols(), bias ? cpu(*bias).data() : nullptr,
                      cpu(y).data());
    }

    void stateSpace(const Tensor& x, const Tensor& B, const Tensor& C, const Tensor& dt,
                    const Tensor& aLog, const Tensor& dtBias, const Tensor& D,
                    const StateSpaceLayout& layout, Tensor& out,
                    const AttentionCapture* capture) override {
        m_shapes.stateSpace(x, B, C, dt, aLog, dtBias, D, layout, out);
        cpuStateSpace(
            m_pool,
            {cpu(x).data(), cpu(B).data(), cpu(C).data(), cpu(dt).data(), cpu(aLog).data(),
             cpu(dtBias).data(), cpu(D).data(), x.rows(), cpu(out).data()},
            layout, capture);
    }

    void gatedDeltaRule(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& b,
                        const Tensor& a, const Tensor& aLog, const Tensor& dtBias,
                        const DeltaRuleLayout& layout, Tensor& out,
                        const AttentionCapture* capture) override {
        m_shapes.gatedDeltaRule(q, k, v, b, a, aLog, dtBias, layout, out);
        cpuGatedDeltaRule(
            m_pool,
            {cpu(q).data(), cpu(k).data(), cpu(v).data(), cpu(b).data(), cpu(a).data(),
             cpu(aLog).data(), cpu(dtBias).data(), q.rows(), cpu(out).data()},
            layout, capture);
    }

  private:
    // Runs fn(first, last) over [0, count) on the pool, in one piece when there are fewer than
    // two grains of work.
    template <typename Fn>
    void split(int count, int grain, const Fn& fn) {
        if (count < 2 * grain) {
            fn(0, count);
            return;
        }
        m_pool.parallelFor(count, [&](int, int first, int last) { fn(first, last); });
    }

    // fn(ArrayMap) over consecutive ranges of t's elements (Eigen's tanh/exp/erf vectorise).
    template <typename Fn>
    void splitElements(Tensor& t, const Fn& fn) {
        float* data = cpu(t).data();
        const int blocks = (t.rows() * t.cols() + kElementGrain - 1) / kElementGrain;
        const Eigen::Index size = static_cast<Eigen::Index>(t.rows()) * t.cols();
        split(blocks, 1, [&](int first, int last) {
            const Eigen::Index begin = static_cast<Eigen::Index>(first) * kElementGrain;
            const Eigen::Index end =
                std::min(size, static_cast<Eigen::Index>(last) * kElementGrain);
            fn(ArrayMap(data + begin, end - begin));
        });
    }

    const OpShapes m_shapes{"cpu"};
    ThreadPool m_pool;
    std::vector<std::unique_ptr<CpuBackend>> m_itemBackends;  // one per thread of m_pool
};

}  // namespace

std::unique_ptr<Backend> createCpuBackend() {
    const int threads = g_threads.load();
    return std::make_unique<CpuBackend>(
        threads > 0 ? threads
                    : static_cast<int>(std::max(1u, std::thread::hardware_concurrency())));
}

void setCpuBackendThreads(int threads) { g_threads = std::max(1, threads); }

}  // namespace qkv
