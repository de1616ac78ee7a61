#include "core/train/gpt2_network.h"

#include <algorithm>

#include "core/backend/gemm.h"
#include "core/train/layer_ops.h"
#include "core/train/loss_ops.h"

namespace qkv::train {
namespace {

constexpr float kLayerNormEps = 1e-5f;

template <typename T>
void addInto(ThreadPool& pool, T* accumulator, const T* x, std::size_t n) {
    pool.parallelFor(static_cast<int>(n), [&](int, int begin, int end) {
        for (int i = begin; i < end; ++i) accumulator[i] += x[i];
    });
}

}  // namespace

template <typename T>
Gpt2Network<T>::Gpt2Network(const ModelShape& shape, ThreadPool& pool)
    : m_shape(shape), m_layout(shape), m_pool(pool), m_layers(shape.layers) {
    m_shape.validate();
}

template <typename T>
AttentionShape Gpt2Network<T>::attentionShape() const {
    return AttentionShape::forTying(m_shape.tying, m_sequences, m_length, m_shape.heads,
                                    m_shape.headDim());
}

template <typename T>
void Gpt2Network<T>::allocate(int sequences, int length) {
    m_sequences = sequences;
    m_length = length;
    const std::size_t n = static_cast<std::size_t>(sequences) * length;
    const std::size_t d = m_shape.dModel, f = m_shape.dFF();
    const std::size_t stride = attentionShape().projectionStride;
    for (auto& a : m_layers) {
        for (auto* v : {&a.input, &a.ln1, &a.attn, &a.mid, &a.ln2}) v->resize(n * d);
        for (auto* v : {&a.ln1Mean, &a.ln1Rstd, &a.ln2Mean, &a.ln2Rstd}) v->resize(n);
        a.proj.resize(n * stride);
        a.probs.resize(static_cast<std::size_t>(sequences) * m_shape.heads * length * length);
        a.fc.resize(n * f);
        a.gelu.resize(n * f);
    }
    for (auto* v : {&m_final, &m_lnf}) v->resize(n * d);
    for (auto* v : {&m_lnfMean, &m_lnfRstd, &m_logSumExp}) v->resize(n);
    m_logits.resize(n * m_shape.vocab);
}

template <typename T>
double Gpt2Network<T>::forward(const T* params, const int* inputs, const int* targets,
                               int sequences, int length) {
    allocate(sequences, length);
    const int n = sequences * length, d = m_shape.dModel, f = m_shape.dFF();
    m_inputs.assign(inputs, inputs + n);
    m_targets.assign(targets, targets + n);
    ThreadPool& pool = m_pool;
    const T eps = static_cast<T>(kLayerNormEps);
    const T* p = params;

    embedForward<T>(pool, p + m_layout.wte, p + m_layout.wpe, inputs, sequences, length, d,
                    m_layers[0].input.data());
    std::vector<T>& residual = m_residual;
    residual.resize(static_cast<std::size_t>(n) * d);
    for (int l = 0; l < m_shape.layers; ++l) {
        const auto& w = m_layout.layers[l];
        LayerActivations& a = m_layers[l];
        T* next = l + 1 < m_shape.layers ? m_layers[l + 1].input.data() : m_final.data();

        layerNormForward<T>(pool, a.input.data(), p + w.ln1Gamma, p + w.ln1Beta, n, d, eps,
                            a.ln1.data(), a.ln1Mean.data(), a.ln1Rstd.data());
        projectAttention(p, w, a);
        attentionForward<T>(pool, attentionShape(), a.proj.data(), a.probs.data(), a.attn.data());
        linearForward<T>(pool, a.attn.data(), n, d, p + w.projWeight, p + w.projBias, d,
                         residual.data());
        std::copy(a.input.begin(), a.input.end(), a.mid.begin());
        addInto<T>(pool, a.mid.data(), residual.data(), residual.size());

        layerNormForward<T>(pool, a.mid.data(), p + w.ln2Gamma, p + w.ln2Beta, n, d, eps,
                            a.ln2.data(), a.ln2Mean.data(), a.ln2Rstd.data());
        linearForward<T>(pool, a.ln2.data(), n, d, p + w.fcWeight, p + w.fcBias, f, a.fc.data());
        geluForward<T>(pool, a.fc.data(), a.gelu.data(), a.fc.size());
        linearForward<T>(pool, a.gelu.data(), n, f, p + w.outWeight, p + w.outBias, d,
                         residual.data());
        std::copy(a.mid.begin(), a.mid.end(), next);
        addInto<T>(pool, next, residual.data(), residual.size());
    }
    layerNormForward<T>(pool, m_final.data(), p + m_layout.lnfGamma, p + m_layout.lnfBeta, n, d,
                        eps, m_lnf.data(), m_lnfMean.data(), m_lnfRstd.data());
    // Tied output projection: logits = ln_f(x) wte^T.
    parallelGemm<T>(pool, {false, true, n, m_shape.vocab, d}, T(1), m_lnf.data(), d,
                    p + m_layout.wte, d, T(0), m_logits.data(), m_shape.vocab);
    return crossEntropyForward<T>(pool, m_logits.data(), targets, n, m_shape.vocab,
                                  m_logSumExp.data()) /
           n;
}

template <typename T>
void Gpt2Network<T>::backward(const T* params, T* grads) {
    const int n = m_sequences * m_length, d = m_shape.dModel, f = m_shape.dFF();
    const int vocab = m_shape.vocab;
    ThreadPool& pool = m_pool;
    const T* p = params;
    T* g = grads;
    m_dx.assign(static_cast<std::size_t>(n) * d, T(0));
    m_dNarrow.resize(static_cast<std::size_t>(n) * d);
    m_dAttn.resize(static_cast<std::size_t>(n) * d);
    m_dWide.resize(static_cast<std::size_t>(n) * f);
    m_dProj.resize(static_cast<std::size_t>(n) * attentionShape().projectionStride);

    // The logits buffer becomes d(loss)/d(logits).
    crossEntropyBackward<T>(pool, m_logits.data(), m_targets.data(), m_logSumExp.data(), n, vocab,
                            T(1) / n, m_logits.data());
    parallelGemm<T>(pool, {false, false, n, d, vocab}, T(1), m_logits.data(), vocab,
                    p + m_layout.wte, d, T(0), m_dNarrow.data(), d);
    parallelGemm<T>(pool, {true, false, vocab, d, n}, T(1), m_logits.data(), vocab, m_lnf.data(), d,
                    T(1), g + m_layout.wte, d);
    layerNormBackward<T>(pool, m_dNarrow.data(), m_final.data(), p + m_layout.lnfGamma,
                         m_lnfMean.data(), m_lnfRstd.data(), n, d, m_dx.data(),
                         g + m_layout.lnfGamma, g + m_layout.lnfBeta);

    for (int l = m_shape.layers - 1; l >= 0; --l) {
        const auto& w = m_layout.layers[l];
        const LayerActivations& a = m_layers[l];
        // next = mid + c_proj(gelu(c_fc(ln_2(mid)))); m_dx holds d(loss)/d(next).
        linearBackward<T>(pool, a.gelu.data(), m_dx.data(), n, f, d, p + w.outWeight,
                          m_dWide.data(), g + w.outWeight, g + w.outBias);
        geluBackward<T>(pool, a.fc.data(), m_dWide.data(), m_dWide.data(), m_dWide.size());
        linearBackward<T>(pool, a.ln2.data(), m_dWide.data(), n, d, f, p + w.fcWeight,
                          m_dNarrow.data(), g + w.fcWeight, g + w.fcBias);
        layerNormBackward<T>(pool, m_dNarrow.data(), a.mid.data(), p + w.ln2Gamma, a.ln2Mean.data(),
                             a.ln2Rstd.data(), n, d, m_dx.data(), g + w.ln2Gamma, g + w.ln2Beta);
        // mid = input + c_proj(attention(c_attn(ln_1(input)))); m_dx holds d(loss)/d(mid).
        linearBackward<T>(pool, a.attn.data(), m_dx.data(), n, d, d, p + w.projWeight,
                          m_dAttn.data(), g + w.projWeight, g + w.projBias);
        std::fill(m_dProj.begin(), m_dProj.end(), T(0));
        attentionBackward<T>(pool, attentionShape(), a.proj.data(), a.probs.data(), m_dAttn.data(),
                             m_dProj.data());
        projectAttentionBackward(p, g, w, a);
        layerNormBackward<T>(pool, m_dNarrow.data(), a.input.data(), p + w.ln1Gamma,
                             a.ln1Mean.data(), a.ln1Rstd.data(), n, d, m_dx.data(), g + w.ln1Gamma,
                             g + w.ln1Beta);
    }
    embedBackward<T>(pool, m_dx.data(), m_inputs.data(), m_sequences, m_length, d, g + m_layout.wte,
                     g + m_layout.wpe);
}

// Full-bilinear's projection P = [x W_h + c_h ... | V | x] holds its keys x after the linear
// part's columns; factored variants' P is the linear layer's output itself.
template <typename T>
void Gpt2Network<T>::projectAttention(const T* p, const ParameterLayout::Layer& w,
                                      LayerActivations& a) {
    const int n = m_sequences * m_length, d = m_shape.dModel;
    const int linear = m_shape.attentionColumns(), stride = attentionShape().projectionStride;
    if (linear == stride) {
        linearForward<T>(m_pool, a.ln1.data(), n, d, p + w.attnWeight, p + w.attnBias, linear,
                         a.proj.data());
        return;
    }
    m_linearScratch.resize(static_cast<std::size_t>(n) * linear);
    linearForward<T>(m_pool, a.ln1.data(), n, d, p + w.attnWeight, p + w.attnBias, linear,
                     m_linearScratch.data());
    for (int r = 0; r < n; ++r) {
        T* row = a.proj.data() + static_cast<std::size_t>(r) * stride;
        std::copy_n(m_linearScratch.data() + static_cast<std::size_t>(r) * linear, linear, row);
        std::copy_n(a.ln1.data() + static_cast<std::size_t>(r) * d, d, row + linear);
    }
}

// Leaves d(loss)/d(ln_1 output) in m_dNarrow.
template <typename T>
void Gpt2Network<T>::projectAttentionBackward(const T* p, T* g, const ParameterLayout::Layer& w,
                                              const LayerActivations& a) {
    const int n = m_sequences * m_length, d = m_shape.dModel;
    const int linear = m_shape.attentionColumns(), stride = attentionShape().projectionStride;
    if (linear == stride) {
        linearBackward<T>(m_pool, a.ln1.data(), m_dProj.data(), n, d, linear, p + w.attnWeight,
                          m_dNarrow.data(), g + w.attnWeight, g + w.attnBias);
        return;
    }
    m_linearScratch.resize(static_cast<std::size_t>(n) * linear);
    for (int r = 0; r < n; ++r)
        std::copy_n(m_dProj.data() + static_cast<std::size_t>(r) * stride, linear,
                    m_linearScratch.data() + static_cast<std::size_t>(r) * linear);
    linearBackward<T>(m_pool, a.ln1.data(), m_linearScratch.data(), n, d, linear, p + w.attnWeight,
                      m_dNarrow.data(), g + w.attnWeight, g + w.attnBias);
    for (int r = 0; r < n; ++r)
        for (int c = 0; c < d; ++c)
            m_dNarrow[static_cast<std::size_t>(r) * d + c] +=
                m_dProj[static_cast<std::size_t>(r) * stride + linear + c];
}

template <typename T>
double Gpt2Network<T>::attentionEntropy() const {
    double total = 0.0;
    long rows = 0;
    for (const LayerActivations& a : m_layers)
        total += attentionEntropySum<T>(attentionShape(), a.probs.data(), rows);
    return rows ? total / rows : 0.0;
}

template <typename T>
double Gpt2Network<T>::trainingFlops(int sequences, int length) const {
    const double n = static_cast<double>(sequences) * length;
    const double d = m_shape.dModel, f = m_shape.dFF(), a = m_shape.attentionColumns();
    const double scoreWidth = m_shape.tying.fullBilinear ? m_shape.heads * d : d;
    const double perLayer = 2 * n * d * a + 2 * n * d * d + 2 * 2 * n * d * f  // linears
                            + 2 * n * length * (scoreWidth + d);  // Q K^T and A V, all heads
    const double forward = m_shape.layers * perLayer + 2 * n * d * m_shape.vocab;
    return 3 * forward;
}

template class Gpt2Network<float>;
template class Gpt2Network<double>;

}  // namespace qkv::train
