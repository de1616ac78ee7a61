#pragma once
// What a local or sparse mask hides from a softmax head (DESIGN.md, "Layers without a softmax,
// and sparse ones"): the dense counterfactual — the softmax of the same captured scores with the
// layer's sliding window, chunk or local reach lifted, causality, a masked diagonal (mask-self)
// and the head's sink kept; a counterfactual, never what the model computed — and per query the
// mass that counterfactual puts on the keys the mask removed (docs/definitions.md).
#include <vector>

#include "core/backend/key_mask.h"
#include "core/model/attention_trace.h"

namespace qkv {

struct HiddenKeys {
    RowMatrixXf dense;            // n_q x n_k: the counterfactual probabilities
    std::vector<double> dropped;  // per query: the counterfactual's mass on the hidden keys
};

// Whether the mask removes keys causality alone would show: a window, a chunk or a reach.
inline bool hidesKeys(const KeyMask& mask) {
    return mask.window > 0 || mask.chunk > 0 || mask.reach > 0;
}

// From a head's captured scores (scaled, before masking) and the probabilities the model gave
// them under `mask`: the model's normalisation (its post-scale, or with `sink` what the sink
// took) is read off the probabilities and kept, so that on the keys the mask shows the
// counterfactual is the model's row times Z_shown / Z_dense.
HiddenKeys whatTheMaskHides(const RowMatrixXf& scores, const RowMatrixXf& probabilities,
                            const KeyMask& mask, bool maskSelf, bool sink);

}  // namespace qkv
