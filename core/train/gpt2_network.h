#pragma once
// The training-side GPT-2: forward with the loss, and backward by hand, over a flat parameter
// array laid out by ParameterLayout. Numerically it is the inference forward (core/model/
// forward.h) in a different order of operations; the two agree to float rounding. Instantiated
// for float (training) and double (gradient checks against finite differences).
#include <vector>

#include "core/train/attention_ops.h"
#include "core/train/parameters.h"
#include "core/util/thread_pool.h"

namespace qkv::train {

template <typename T>
class Gpt2Network {
  public:
    Gpt2Network(const ModelShape& shape, ThreadPool& pool);

    const ModelShape& shape() const { return m_shape; }
    const ParameterLayout& layout() const { return m_layout; }

    // Mean next-token cross-entropy over `sequences` sequences of `length` tokens (row-major
    // inputs and targets, length <= context). Keeps the activations backward() needs.
    double forward(const T* params, const int* inputs, const int* targets, int sequences,
                   int length);
    // Adds the gradient of the last forward()'s mean loss with respect to params into grads.
    void backward(const T* params, T* grads);

    // The last forward()'s logits, (sequences * length) x vocab, valid until backward().
    const std::vector<T>& logits() const { return m_logits; }

    // Mean entropy (nats) of the last forward()'s attention rows, over layers, heads and tokens
    // (of the softmax, before a scale applied outside it).
    double attentionEntropy() const;

    // Floating-point operations in the matrix products of one forward + backward (3x forward).
    double trainingFlops(int sequences, int length) const;

  private:
    struct LayerActivations {
        std::vector<T> input, ln1, ln1Mean, ln1Rstd, proj, probs, attn, mid;
        std::vector<T> ln2, ln2Mean, ln2Rstd, fc, gelu;
    };
    void allocate(int sequences, int length);
    void projectAttention(const T* params, const ParameterLayout::Layer& w, LayerActivations& a);
    void projectAttentionBackward(const T* params, T* grads, const ParameterLayout::Layer& w,
                                  const LayerActivations& a);
    AttentionShape attentionShape() const;

    ModelShape m_shape;
    ParameterLayout m_layout;
    ThreadPool& m_pool;
    int m_sequences = 0;
    int m_length = 0;
    std::vector<int> m_inputs, m_targets;
    std::vector<LayerActivations> m_layers;
    std::vector<T> m_residual;  // a sublayer's output before it is added to the stream
    std::vector<T> m_final, m_lnf, m_lnfMean, m_lnfRstd, m_logits, m_logSumExp;
    // Backward scratch.
    std::vector<T> m_dx, m_dWide, m_dNarrow, m_dAttn, m_dProj;
    std::vector<T> m_linearScratch;  // full-bilinear: the linear part of P, or its gradient
};

}  // namespace qkv::train
