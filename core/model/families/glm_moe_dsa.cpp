// GLM-5 (glm_moe_dsa; keys under "model."): DeepSeek-V3.2's network (deepseek_v32.cpp) with an
// interleaved indexer rotary, and indexer_types: a "full" layer runs its own indexer, a "shared"
// one has none and keeps the previous layer's keys (LayerKind::reusesKeys).
#include "core/model/families/binding.h"

namespace qkv::families {
namespace {

void read(const ConfigReader& r, Architecture& c) {
    readLatentMoeDecoder(r, c);
    c.normEps = r.numberOr("rms_norm_eps", 1e-5f);
    readKeyIndexer(r, c, true);
    if (!r.has("indexer_types")) return;
    const std::vector<std::string> kinds = r.strings("indexer_types");
    if (static_cast<int>(kinds.size()) != c.layers)
        r.fail("\"indexer_types\" names " + std::to_string(kinds.size()) + " layers of " +
               std::to_string(c.layers));
    for (int l = 0; l < c.layers; ++l) {
        if (kinds[l] != "full" && kinds[l] != "shared")
            r.fail("\"indexer_types\" \"" + kinds[l] + "\" is neither \"full\" nor \"shared\"");
        if (kinds[l] == "shared" && l == 0)
            r.fail(
                "\"indexer_types\" starts with \"shared\": the first layer has no earlier "
                "selection to keep");
        c.layerKinds[l].reusesKeys = kinds[l] == "shared";
    }
}

}  // namespace

ModelFamily glmMoeDsa() {
    return {"glm_moe_dsa", {"glm_moe_dsa"}, {"model.", ""}, read, bindLatentDecoder, {"fp8"}};
}

}  // namespace qkv::families
