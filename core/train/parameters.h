#pragma once
// The trainable parameters of a ModelShape as one flat array (so the optimizer, clipping and
// gradient checks run over a single buffer) and where each tensor sits in it. Each layer's
// attention holds only its distinct sources: [d_model, sources * d_model] and its bias, the
// columns of source s being s * d_model .. (s + 1) * d_model. Weights are [in, out] (Conv1D).
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/train/model_shape.h"

namespace qkv::train {

struct ParameterTensor {
    std::string name;  // Hugging Face GPT-2 key; "h.N.attn.sources.*" for the attention sources
    std::size_t offset = 0;
    int rows = 0;
    int cols = 1;
    bool decay = false;  // weight decay applies (matrices; not biases or LayerNorm)

    std::size_t size() const { return static_cast<std::size_t>(rows) * cols; }
};

class ParameterLayout {
  public:
    struct Layer {
        std::size_t ln1Gamma, ln1Beta, attnWeight, attnBias, projWeight, projBias;
        std::size_t ln2Gamma, ln2Beta, fcWeight, fcBias, outWeight, outBias;
    };

    explicit ParameterLayout(const ModelShape& shape);

    std::size_t size() const { return m_size; }
    const std::vector<ParameterTensor>& tensors() const { return m_tensors; }
    const ParameterTensor& tensor(const std::string& name) const;  // throws when absent
    std::uint64_t count() const;  // parameters without the alignment padding

    std::size_t wte = 0, wpe = 0, lnfGamma = 0, lnfBeta = 0;
    std::vector<Layer> layers;

  private:
    std::size_t add(const std::string& name, int rows, int cols, bool decay);

    std::vector<ParameterTensor> m_tensors;
    std::size_t m_size = 0;
};

// GPT-2's initialisation: weights N(0, 0.02), the two residual output projections of each layer
// N(0, 0.02 / sqrt(2 layers)), biases 0, LayerNorm gamma 1, beta 0. Deterministic in `seed`.
std::vector<float> initialParameters(const ParameterLayout& layout, const ModelShape& shape,
                                     std::uint64_t seed);

}  // namespace qkv::train
