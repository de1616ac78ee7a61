#pragma once
// What a local or sparse mask hides from a softmax head (DESIGN.md, "Layers without a softmax,
// and sparse ones"): the dense counterfactual — the softmax of the same captured scores with the
// layer's sliding window, chunk or local reach lifted, causality, a masked diagonal (mask-self)
// and the head's sink kept; a counterfactual, never what the model computed — and per query the
// mass that counterfactual puts on the keys the mask removed (docs/definitions.md).
#include <algorithm>
#include <optional>
#include <vector>

#include "core/backend/key_mask.h"
#include "core/model/architecture.h"
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
// Whether layer l's mask does, or its sparse attention's indexer keeps only some keys.
inline bool hidesKeys(const Architecture& c, int layer) {
    return hidesKeys(c.keyMask(layer)) ||
           (c.keyIndexer.present() && c.mixerOf(layer) == Mixer::Attention);
}
// Whether some layer of the model does.
inline bool someLayerHidesKeys(const Architecture& c) {
    for (int l = 0; l < c.layers; ++l)
        if (hidesKeys(c, l)) return true;
    return false;
}
// The keys a sparse attention layer kept per query (LayerTrace::selectedKeys), or null where the
// layer's mask alone decides.
inline const std::vector<std::vector<int>>* selectedKeys(const AttentionTrace& trace, int layer) {
    const auto& kept = trace.layers()[layer].selectedKeys;
    return kept.empty() ? nullptr : &kept;
}
// Whether query i kept key j among `selected` (each query's kept keys in increasing order).
inline bool keeps(const std::vector<std::vector<int>>& selected, int query, int key) {
    return std::binary_search(selected[query].begin(), selected[query].end(), key);
}

// From a head's captured scores (scaled, before masking) and the probabilities the model gave
// them under `mask` (and, for sparse attention, only the `selected` keys of each query): the
// model's normalisation (its post-scale, or with `sink` what the sink took) is read off the
// probabilities and kept, so that on the keys the mask shows the counterfactual is the model's
// row times Z_shown / Z_dense.
HiddenKeys whatTheMaskHides(const RowMatrixXf& scores, const RowMatrixXf& probabilities,
                            const KeyMask& mask, bool maskSelf, bool sink,
                            const std::vector<std::vector<int>>* selected = nullptr);

// How far a sparse layer's indexer agrees with a head (docs/definitions.md, "Indexer
// agreement"): over the queries with more causal keys than the indexer keeps (k: the last
// query's kept keys), the mean share of the kept keys that are among the head's own k highest
// scores. Null where no query has more than k causal keys.
std::optional<double> indexerAgreement(const RowMatrixXf& scores,
                                       const std::vector<std::vector<int>>& selected);

}  // namespace qkv
