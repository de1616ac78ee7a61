// config.json: architecture, sizes and options, with the consistency checks the forward relies on.
#include "core/model/model_family.h"
#include "tests/fuzz/fuzz_target.h"

using namespace qkv;

QKV_FUZZ_TARGET(model_config) {
    const Architecture c = parseArchitecture(std::string(input), "config.json");
    FUZZ_CHECK(c.layers > 0 && c.heads > 0 && c.kvHeads > 0 && c.dModel > 0 && c.headDim > 0);
    FUZZ_CHECK(c.dFF > 0 && c.vocabSize > 0 && c.contextLength > 0);
    FUZZ_CHECK(c.heads % c.kvHeads == 0 && c.kvGroup() >= 1);
    FUZZ_CHECK(c.positions == Positions::Learned ||
               (c.rotary.dims % 2 == 0 && c.rotary.dims > 0 && c.rotary.dims <= c.headDim));
    FUZZ_CHECK(static_cast<int>(c.layerKinds.size()) == c.layers);
}
