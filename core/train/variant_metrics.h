#pragma once
// What the attention-variant experiments measure besides the loss:
//   - the gradient norms of the weights filling the Q and the K slot (all layers together),
//     which is where a scale outside the softmax would show vanishing gradients;
//   - full-bilinear's W_h: its effective rank against d_k (the rank the factored head is
//     limited to).
#include <optional>
#include <vector>

#include "core/train/parameters.h"

namespace qkv::train {

struct SlotGradientNorms {
    double query = 0;
    std::optional<double> key;  // none for full-bilinear, which has no W_K
};

// Frobenius norms over every layer of the gradient of the source filling the Q slot (for
// full-bilinear, of the W_h) and the K slot; a source shared by both slots is counted in both.
SlotGradientNorms slotGradientNorms(const ModelShape& shape, const ParameterLayout& layout,
                                    const std::vector<float>& grads);

struct BilinearRank {
    double effectiveRank = 0;  // mean over heads of exp(entropy of sigma / sum sigma)
    double numericalRank = 0;  // mean over heads of #{sigma > 1e-3 sigma_max}
};

// Over every layer's and head's d_model x d_model W_h; the shape must be full-bilinear.
BilinearRank bilinearRank(const ModelShape& shape, const ParameterLayout& layout,
                          const std::vector<float>& params);

}  // namespace qkv::train
