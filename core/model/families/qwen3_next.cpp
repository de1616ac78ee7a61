// Qwen3-Next (qwen3_next, keys under "model."): Qwen3.5's hybrid of Gated DeltaNet and gated full
// attention (gated_delta_net.h) with its linear layers' projections fused per key-head group g
// (r = value heads / key heads):
//   in_proj_qkvz  [q_g (dk) | k_g (dk) | v of value heads g·r .. g·r+r-1 (r·dv) | z of them]
//   in_proj_ba    [b of value heads g·r .. g·r+r-1 | a of them]
// (conv1d's channels are not interleaved: [q | k | v], as Qwen3.5's). Layer i's MLP is a
// mixture of experts with a gated shared MLP unless mlp_only_layers lists it or (i + 1) is not a
// multiple of decoder_sparse_step (then a SwiGLU of intermediate_size); the top-k weights are
// renormalised when norm_topk_prob.
#include <algorithm>

#include "core/model/families/gated_delta_net.h"

namespace qkv::families {
namespace {

void read(const ConfigReader& r, Architecture& c) {
    readGatedDeltaNetHybrid(r, c);
    readGatedSharedExperts(r, c, r.boolOr("norm_topk_prob", false));
    const std::vector<int> dense =
        r.has("mlp_only_layers") ? r.integers("mlp_only_layers") : std::vector<int>{};
    const int step = r.positiveIntOr("decoder_sparse_step", 1);
    for (int l = 0; l < c.layers; ++l)
        c.layerKinds[l].experts =
            std::find(dense.begin(), dense.end(), l) == dense.end() && (l + 1) % step == 0;
}

// Columns `first` .. first + width - 1 of each group's block, for each head of the group.
std::vector<int> groupColumns(int groups, int groupWidth, int first, int heads, int width) {
    std::vector<int> order;
    for (int g = 0; g < groups; ++g)
        for (int h = 0; h < heads; ++h)
            for (int i = 0; i < width; ++i) order.push_back(g * groupWidth + first + h * width + i);
    return order;
}

// The linear layer's projections (c: the layer's own shape).
void bindDeltaNet(TensorBinder& b, const Architecture& c, const std::string& p,
                  LayerWeights& layer) {
    const int d = c.dModel, groups = c.kvHeads, r = c.heads / c.kvHeads;
    const int dk = c.headDim, dv = c.valueWidth(), width = 2 * dk + 2 * r * dv;
    const LinearWeights qkvz = linearLayer(b, p + "in_proj_qkvz", d, groups * width, false);
    auto slot = [&](const LinearWeights& fused, std::vector<int> order) {
        LinearWeights w = fused;
        w.outputOrder = std::move(order);
        return w;
    };
    layer.query = slot(qkvz, groupColumns(groups, width, 0, 1, dk));
    layer.key = slot(qkvz, groupColumns(groups, width, dk, 1, dk));
    layer.value = slot(qkvz, groupColumns(groups, width, 2 * dk, r, dv));
    layer.recurrent.z = slot(qkvz, groupColumns(groups, width, 2 * dk + r * dv, r, dv));
    const LinearWeights ba = linearLayer(b, p + "in_proj_ba", d, 2 * c.heads, false);
    layer.recurrent.b = slot(ba, groupColumns(groups, 2 * r, 0, r, 1));
    layer.recurrent.a = slot(ba, groupColumns(groups, 2 * r, r, r, 1));
}

ModelWeights bind(TensorBinder& b, const Architecture& c) {
    return bindGatedDeltaNetHybrid(b, c, bindDeltaNet);
}

}  // namespace

// Qwen's byte-level BPE; transformers' q_proj, k_proj and v_proj (q_proj with the gate rows).
ModelFamily qwen3Next() {
    ModelFamily f{"qwen3_next", {"qwen3_next"}, {"model.", ""}, read, bind};
    f.tokenizer.style = TokenizerHints::Style::Qwen2;
    return f;
}

}  // namespace qkv::families
