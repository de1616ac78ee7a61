// config.json: architecture, sizes and options, with the consistency checks the forward relies on.
#include "core/model/model_family.h"
#include "tests/fuzz/fuzz_target.h"

using namespace qkv;

QKV_FUZZ_TARGET(model_config) {
    const Architecture c = parseArchitecture(std::string(input), "config.json");
    FUZZ_CHECK(c.layers > 0 && c.heads > 0 && c.kvHeads > 0 && c.dModel > 0 && c.headDim > 0);
    FUZZ_CHECK(c.dFF > 0 && c.vocabSize > 0 && c.contextLength > 0);
    FUZZ_CHECK(static_cast<int>(c.layerKinds.size()) == c.layers);
    // Each layer's own heads and rotary (Gemma 4; a hybrid's linear and Mamba-2 layers, whose
    // heads need not divide by the attention layers' key heads).
    for (int l = 0; l < c.layers; ++l) {
        if (c.headsOf(l) == 0) continue;  // an MLP block or a short convolution
        FUZZ_CHECK(c.headDimOf(l) > 0 && c.kvHeadsOf(l) > 0 && c.headsOf(l) % c.kvHeadsOf(l) == 0);
        const Rotary* r = c.rotaryOf(l);
        FUZZ_CHECK(!r || (r->dims % 2 == 0 && r->dims > 0 && r->dims <= c.headDimOf(l)));
    }
}
