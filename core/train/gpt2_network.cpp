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
    const std::size_t d = m_shape.dModel, f = m_shape.dFF(), s = m_shape.tying.sources;
    for (auto& a : m_layers) {
        for (auto* v : {&a.input, &a.ln1, &a.attn, &a.mid, &a.ln2}) v->resize(n * d);
        for (auto* v : {&a.ln1Mean, &a.ln1Rstd, &a.ln2Mean, &a.ln2Rstd}) v->resize(n);
        a.proj.resize(n * s * d);
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
    const int width = m_shape.tying.sources * d;
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
        linearForward<T>(pool, a.ln1.data(), n, d, p + w.attnWeight, p + w.attnBias, width,
                         a.proj.data());
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
    const int vocab = m_shape.vocab, width = m_shape.tying.sources * d;
    ThreadPool& pool = m_pool;
    const T* p = params;
    T* g = grads;
    m_dx.assign(static_cast<std::size_t>(n) * d, T(0));
    m_dNarrow.resize(static_cast<std::size_t>(n) * d);
    m_dAttn.resize(static_cast<std::size_t>(n) * d);
    m_dWide.resize(static_cast<std::size_t>(n) * f);
    m_dProj.resize(static_cast<std::size_t>(n) * width);

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
        linearBackward<T>(pool, a.ln1.data(), m_dProj.data(), n, d, width, p + w.attnWeight,
                          m_dNarrow.data(), g + w.attnWeight, g + w.attnBias);
        layerNormBackward<T>(pool, m_dNarrow.data(), a.input.data(), p + w.ln1Gamma,
                             a.ln1Mean.data(), a.ln1Rstd.data(), n, d, m_dx.data(), g + w.ln1Gamma,
                             g + w.ln1Beta);
    }
    embedBackward<T>(pool, m_dx.data(), m_inputs.data(), m_sequences, m_length, d, g + m_layout.wte,
                     g + m_layout.wpe);
}

template <typename T>
double Gpt2Network<T>::trainingFlops(int sequences, int length) const {
    const double n = static_cast<double>(sequences) * length;
    const double d = m_shape.dModel, f = m_shape.dFF(), s = m_shape.tying.sources;
    const double perLayer = 2 * n * d * (s * d) + 2 * n * d * d + 2 * 2 * n * d * f  // linears
                            + 4 * n * length * d;  // Q K^T and A V over all heads
    const double forward = m_shape.layers * perLayer + 2 * n * d * m_shape.vocab;
    return 3 * forward;
}

template class Gpt2Network<float>;
template class Gpt2Network<double>;

}  // namespace qkv::train
