// MiniMax-M2 (minimax_m2; keys under "model."): grouped-query attention whose q and k pass an
// RMSNorm over the whole projection — all heads at once, before the head split and rotary
// (q_norm, k_norm) — with rotary on the first partial_rotary_factor of each head (rotate-half);
// every MLP Mixtral's mixture of experts (block_sparse_moe.experts.N: w1 the gate, w3 up, w2
// down) routed by sigmoid scores: a token's num_experts_per_tok experts are those with the
// highest σ(logit) + e_score_correction_bias, weighted by their σ(logit) renormalised to sum to
// one. No shared experts, no groups. The Hub's files keep the linear weights in FP8.
#include "core/model/families/binding.h"

namespace qkv::families {
namespace {

void read(const ConfigReader& r, Architecture& c) {
    readRotaryDecoder(r, c);
    c.qkNorm = QkNorm::Whole;
    c.moe = readExperts(r, "num_local_experts", c.dFF, true);
    c.moe.router = Router::SigmoidTopK;
    c.layerKinds.assign(c.layers, LayerKind{false, true, true});
}

ModelWeights bind(TensorBinder& b, const Architecture& c) {
    return bindLlamaDecoder(
        b, c, false, false, [&](const std::string& p, int, LayerWeights& layer) {
            const std::string moe = p + "block_sparse_moe.";
            bindExperts(b, c, moe, {"w1", "w3", "w2"}, layer);
            layer.routerChoiceBias = b.vector(moe + "e_score_correction_bias", c.moe.experts);
        });
}

}  // namespace

ModelFamily minimaxM2() {
    return {"minimax_m2", {"minimax_m2"}, {"model.", ""}, read, bind, {"fp8"}};
}

}  // namespace qkv::families
