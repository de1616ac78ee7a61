// GLM-4.7-Flash (glm4_moe_lite; keys under "model."): DeepSeek-V3's network — multi-head latent
// attention with interleaved rope, the sigmoid-routed experts with a correction bias, groups and
// shared experts (GLM-4.5's MoE is DeepSeek-V3's) — whose dense and expert layers
// mlp_layer_types names ("dense" or "sparse"; by default the first dense, the rest sparse).
// The Hub's multi-token prediction layer (model.layers.<num_hidden_layers>) is not read.
#include "core/model/families/binding.h"

namespace qkv::families {
namespace {

void read(const ConfigReader& r, Architecture& c) {
    readLatentDecoder(r, c, true);
    c.normEps = r.numberOr("rms_norm_eps", 1e-5f);
    readRoutedExperts(r, c, true);
    if (!c.moe.experts) r.fail("\"n_routed_experts\" is missing");
    std::vector<std::string> kinds = {"dense"};
    kinds.resize(c.layers, "sparse");
    if (r.has("mlp_layer_types")) kinds = r.strings("mlp_layer_types");
    if (static_cast<int>(kinds.size()) != c.layers)
        r.fail("\"mlp_layer_types\" names " + std::to_string(kinds.size()) + " layers of " +
               std::to_string(c.layers));
    for (int l = 0; l < c.layers; ++l) {
        if (kinds[l] != "dense" && kinds[l] != "sparse")
            r.fail("\"mlp_layer_types\" \"" + kinds[l] + "\" is neither \"dense\" nor \"sparse\"");
        c.layerKinds[l].experts = kinds[l] == "sparse";
    }
}

}  // namespace

ModelFamily glm4MoeLite() {
    return {"glm4_moe_lite", {"glm4_moe_lite"}, {"model.", ""}, read, bindLatentDecoder, {"fp8"}};
}

}  // namespace qkv::families
