// CPU backend: row-major host tensors; GEMMs through OpenBLAS (cblas_sgemm), element-wise work
// with plain loops the compiler vectorises.
#include <cblas.h>

#include <Eigen/Core>
#include <algorithm>
#include <unsupported/Eigen/SpecialFunctions>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "core/backend/backend.h"
#include "core/util/error.h"

namespace qkv {
namespace {

// Either owns row-major storage (activations) or views host memory with any layout (weights).
// Owned storage is left uninitialised: every op overwrites its whole output, and zero-filling
// megabytes per layer showed up in profiles.
class CpuTensor final : public Tensor {
public:
    CpuTensor(int rows, int cols)
        : Tensor(rows, cols),
          m_storage(new float[static_cast<size_t>(rows) * cols]),
          m_view{m_storage.get(), rows, cols, cols, 1} {}
    explicit CpuTensor(const MatrixView& view) : Tensor(view.rows, view.cols), m_view(view) {}

    const MatrixView& view() const { return m_view; }
    float* data() { return m_storage.get(); }  // owning tensors only
    const float* data() const { return m_view.data; }
    bool contiguous() const { return m_view.colStride == 1 && m_view.rowStride == m_view.cols; }

private:
    std::unique_ptr<float[]> m_storage;
    MatrixView m_view;
};

const CpuTensor& cpu(const Tensor& t) { return static_cast<const CpuTensor&>(t); }
CpuTensor& cpu(Tensor& t) { return static_cast<CpuTensor&>(t); }

void requireShape(bool ok, const char* op) {
    if (!ok) throw Error(std::string("internal error: shape mismatch in cpu ") + op);
}

// C (m x n, row-major, ldc) = alpha * A (m x k) * B (k x n) + beta * C for arbitrary-layout views.
void gemm(const MatrixView& a, const MatrixView& b, float alpha, float beta, float* c, int ldc) {
    auto layout = [](const MatrixView& v, CBLAS_TRANSPOSE& trans, int& ld) {
        if (v.colStride == 1) {
            trans = CblasNoTrans;
            ld = static_cast<int>(std::max<std::ptrdiff_t>(v.rowStride, v.cols));
        } else {
            trans = CblasTrans;  // column-major view = transpose of a row-major one
            ld = static_cast<int>(std::max<std::ptrdiff_t>(v.colStride, v.rows));
        }
    };
    CBLAS_TRANSPOSE ta, tb;
    int lda, ldb;
    layout(a, ta, lda);
    layout(b, tb, ldb);
    cblas_sgemm(CblasRowMajor, ta, tb, a.rows, b.cols, a.cols, alpha, a.data, lda, b.data, ldb,
                beta, c, ldc);
}

using ArrayMap = Eigen::Map<Eigen::ArrayXf>;
using ConstArrayMap = Eigen::Map<const Eigen::ArrayXf>;

ArrayMap elements(Tensor& t) {
    return ArrayMap(cpu(t).data(), static_cast<Eigen::Index>(t.rows()) * t.cols());
}
ConstArrayMap elements(const Tensor& t) {
    return ConstArrayMap(cpu(t).data(), static_cast<Eigen::Index>(t.rows()) * t.cols());
}

class CpuBackend final : public Backend {
public:
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
    void download(const Tensor& t, float* rowMajor) override {
        const MatrixView& v = cpu(t).view();
        if (cpu(t).contiguous()) {
            std::memcpy(rowMajor, v.data, sizeof(float) * v.rows * v.cols);
            return;
        }
        for (int r = 0; r < v.rows; ++r)
            for (int c = 0; c < v.cols; ++c) rowMajor[r * v.cols + c] = v.at(r, c);
    }
    void synchronize() override {}

    void linear(const Tensor& x, const Tensor& w, const Tensor* bias, Tensor& y) override {
        requireShape(x.cols() == w.rows() && y.rows() == x.rows() && y.cols() == w.cols(),
                     "linear");
        float* out = cpu(y).data();
        float beta = 0.0f;
        if (bias) {
            const float* b = cpu(*bias).data();
            for (int r = 0; r < y.rows(); ++r) std::memcpy(out + r * y.cols(), b, sizeof(float) * y.cols());
            beta = 1.0f;
        }
        gemm(cpu(x).view(), cpu(w).view(), 1.0f, beta, out, y.cols());
    }

    void layerNorm(const Tensor& x, const Tensor& gamma, const Tensor* beta, float eps,
                   Tensor& y) override {
        requireShape(x.rows() == y.rows() && x.cols() == y.cols(), "layerNorm");
        const int n = x.cols();
        const float* g = cpu(gamma).data();
        const float* b = beta ? cpu(*beta).data() : nullptr;
        for (int r = 0; r < x.rows(); ++r) {
            const float* in = cpu(x).data() + r * n;
            float* out = cpu(y).data() + r * n;
            double mean = 0.0;
            for (int i = 0; i < n; ++i) mean += in[i];
            mean /= n;
            double var = 0.0;
            for (int i = 0; i < n; ++i) var += (in[i] - mean) * (in[i] - mean);
            var /= n;
            const float inv = static_cast<float>(1.0 / std::sqrt(var + eps));
            const float m = static_cast<float>(mean);
            for (int i = 0; i < n; ++i) out[i] = (in[i] - m) * inv * g[i] + (b ? b[i] : 0.0f);
        }
    }

    void rmsNorm(const Tensor& x, const Tensor& gamma, float eps, Tensor& y) override {
        requireShape(x.rows() == y.rows() && x.cols() == y.cols(), "rmsNorm");
        const int n = x.cols();
        const float* g = cpu(gamma).data();
        for (int r = 0; r < x.rows(); ++r) {
            const float* in = cpu(x).data() + r * n;
            float* out = cpu(y).data() + r * n;
            double sumSquares = 0.0;
            for (int i = 0; i < n; ++i) sumSquares += static_cast<double>(in[i]) * in[i];
            const float inv = static_cast<float>(1.0 / std::sqrt(sumSquares / n + eps));
            for (int i = 0; i < n; ++i) out[i] = g[i] * (in[i] * inv);
        }
    }

    // Element-wise work goes through Eigen arrays, whose tanh/exp/erf are vectorised.
    void activate(Tensor& x, Activation activation) override {
        ArrayMap a = elements(x);
        switch (activation) {
            case Activation::GeluTanh: {
                constexpr float kSqrt2OverPi = 0.7978845608028654f;
                a = 0.5f * a * (1.0f + (kSqrt2OverPi * (a + 0.044715f * a.cube())).tanh());
                break;
            }
            case Activation::GeluExact:
                a = 0.5f * a * (1.0f + (a * 0.7071067811865476f).erf());
                break;
            case Activation::Relu:
                a = a.max(0.0f);
                break;
            case Activation::SwiGlu:
                throw Error("internal error: SwiGLU is a two-input op (swiGlu)");
        }
    }

    void swiGlu(const Tensor& gate, Tensor& up) override {
        requireShape(gate.rows() == up.rows() && gate.cols() == up.cols(), "swiGlu");
        ConstArrayMap g = elements(gate);
        elements(up) *= g / (1.0f + (-g).exp());
    }

    void add(Tensor& accumulator, const Tensor& x) override {
        requireShape(accumulator.rows() == x.rows() && accumulator.cols() == x.cols(), "add");
        elements(accumulator) += elements(x);
    }

    void rope(const Tensor& x, int headDim, float theta, Tensor& y) override {
        requireShape(x.rows() == y.rows() && x.cols() == y.cols() && x.cols() % headDim == 0,
                     "rope");
        const int half = headDim / 2;
        std::vector<double> inverseFrequency(half);
        for (int i = 0; i < half; ++i)
            inverseFrequency[i] = std::pow(static_cast<double>(theta), -2.0 * i / headDim);
        const int cols = x.cols();
        for (int pos = 0; pos < x.rows(); ++pos) {
            const float* in = cpu(x).data() + pos * cols;
            float* out = cpu(y).data() + pos * cols;
            for (int i = 0; i < half; ++i) {
                // HF computes the angle in float32 before cos/sin; match it.
                const float angle = static_cast<float>(pos) * static_cast<float>(inverseFrequency[i]);
                const float c = std::cos(angle), s = std::sin(angle);
                for (int h = 0; h < cols; h += headDim) {
                    const float a = in[h + i], b = in[h + i + half];
                    out[h + i] = a * c - b * s;
                    out[h + i + half] = b * c + a * s;
                }
            }
        }
    }

    void copyRows(const Tensor& source, int first, int count, Tensor& destination) override {
        requireShape(first >= 0 && first + count <= source.rows() && destination.rows() == count &&
                         destination.cols() == source.cols(),
                     "copyRows");
        std::memcpy(cpu(destination).data(), cpu(source).data() + first * source.cols(),
                    sizeof(float) * count * source.cols());
    }

    void attention(const Tensor& q, const Tensor& k, const Tensor& v,
                   const AttentionLayout& layout, const AttentionOptions& options, Tensor& out,
                   const AttentionCapture* capture) override {
        const int n = q.rows();
        const int dk = layout.headDim;
        requireShape(k.rows() == n && v.rows() == n && out.rows() == n &&
                         out.cols() == layout.heads * dk,
                     "attention");
        const float scale = 1.0f / std::sqrt(static_cast<float>(dk));
        std::vector<float> scores(static_cast<size_t>(n) * n);
        std::vector<float> transposeScratch;
        for (int h = 0; h < layout.heads; ++h) {
            const MatrixView qh = cpu(q).view().columns(h / layout.queryGroup * dk, dk);
            const MatrixView kh = cpu(k).view().columns(h / layout.keyGroup * dk, dk);
            const MatrixView vh = cpu(v).view().columns(h / layout.valueGroup * dk, dk);
            gemm(qh, kh.transposed(), options.scaleOutside ? 1.0f : scale, 0.0f, scores.data(), n);
            applyTransform(options.transform, n, scores, transposeScratch);
            if (capture && h < static_cast<int>(capture->scores.size()) && capture->scores[h])
                std::memcpy(capture->scores[h], scores.data(), sizeof(float) * n * n);
            softmaxRows(n, options, options.scaleOutside ? scale : 1.0f, scores.data());
            if (capture && h < static_cast<int>(capture->probabilities.size()) &&
                capture->probabilities[h])
                std::memcpy(capture->probabilities[h], scores.data(), sizeof(float) * n * n);
            gemm(MatrixView::rowMajor(scores.data(), n, n), vh, 1.0f, 0.0f,
                 cpu(out).data() + h * dk, out.cols());
        }
    }

private:
    static void applyTransform(ScoreTransform transform, int n, std::vector<float>& s,
                               std::vector<float>& scratch) {
        if (transform == ScoreTransform::None) return;
        scratch = s;
        const float sign = transform == ScoreTransform::Symmetric ? 1.0f : -1.0f;
        for (int i = 0; i < n; ++i)
            for (int j = 0; j < n; ++j)
                s[i * n + j] = 0.5f * (scratch[i * n + j] + sign * scratch[j * n + i]);
    }

    // Masked softmax per row, then multiplied by `postScale` (1/sqrt(d_k) when scaling outside).
    static void softmaxRows(int n, const AttentionOptions& options, float postScale, float* s) {
        for (int i = 0; i < n; ++i) {
            ArrayMap row(s + static_cast<size_t>(i) * n, n);
            const int visible = options.causal ? i + 1 : n;  // keys 0..visible-1
            // Reformer's rule: mask the token itself unless it has nothing else to attend to.
            const bool maskDiagonal = options.maskSelf && visible > 1;
            if (maskDiagonal) row(i) = -std::numeric_limits<float>::infinity();
            auto head = row.head(visible);
            head = (head - head.maxCoeff()).exp();
            // Eigen's vectorised exp clamps its argument, so exp(-inf) can come out denormal.
            if (maskDiagonal) row(i) = 0.0f;
            head *= postScale / head.sum();
            row.tail(n - visible).setZero();
        }
    }
};

}  // namespace

std::unique_ptr<Backend> createCpuBackend() { return std::make_unique<CpuBackend>(); }

void setCpuBackendThreads(int threads) { openblas_set_num_threads(std::max(1, threads)); }

}  // namespace qkv
