// Mixtral (keys under "model."): Mistral's decoder whose MLP is a mixture of num_local_experts
// SwiGLU experts (block_sparse_moe.experts.N: w1 the gate, w3 up, w2 down). The router
// (block_sparse_moe.gate) sends each token to its num_experts_per_tok most probable experts,
// whose probabilities are always renormalised to sum to one. Every layer has experts.
#include "core/model/families/binding.h"

namespace qkv::families {
namespace {

void read(const ConfigReader& r, Architecture& c) {
    readRotaryDecoder(r, c);
    c.slidingWindow = r.positiveIntOr("sliding_window", 0);
    c.moe = readExperts(r, "num_local_experts", c.dFF, true);
    c.layerKinds.assign(c.layers, LayerKind{c.slidingWindow > 0, true, true});
}

ModelWeights bind(TensorBinder& b, const Architecture& c) {
    return bindLlamaDecoder(
        b, c, false, false, [&](const std::string& p, int, LayerWeights& layer) {
            bindExperts(b, c, p + "block_sparse_moe.", {"w1", "w3", "w2"}, layer);
        });
}

}  // namespace

ModelFamily mixtral() { return {"mixtral", {"mixtral"}, {"model.", ""}, read, bind}; }

}  // namespace qkv::families
