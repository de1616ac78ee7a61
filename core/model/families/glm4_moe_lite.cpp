// GLM-4.7-Flash (glm4_moe_lite; keys under "model."): DeepSeek-V3's network — multi-head latent
// attention with interleaved rope, the sigmoid-routed experts with a correction bias, groups and
// shared experts (GLM-4.5's MoE is DeepSeek-V3's) — whose dense and expert layers
// mlp_layer_types names ("dense" or "sparse"; by default the first dense, the rest sparse).
// The Hub's multi-token prediction layer (model.layers.<num_hidden_layers>) is not read.
#include "core/model/families/binding.h"

namespace qkv::families {
namespace {

void read(const ConfigReader& r, Architecture& c) {
    readLatentMoeDecoder(r, c);
    c.normEps = r.numberOr("rms_norm_eps", 1e-5f);
    if (!r.has("mlp_layer_types"))  // the first layer dense
        for (int l = 0; l < c.layers; ++l) c.layerKinds[l].experts = l > 0;
}

}  // namespace

ModelFamily glm4MoeLite() {
    return {"glm4_moe_lite", {"glm4_moe_lite"}, {"model.", ""}, read, bindLatentDecoder, {"fp8"}};
}

}  // namespace qkv::families
