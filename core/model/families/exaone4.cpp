// EXAONE 4 (keys under "model."): OLMo 2's block (no norm before a sublayer, one after it) with
// an RMSNorm over each head of q and k before rotary. With a sliding_window, layers are local
// unless (layer + 1) is a multiple of sliding_window_pattern (or as layer_types says), and the
// global layers have no positions at all (NoPE); without one every layer is global and rotary.
// Rotary with any rope scaling (llama3 on the Hub's models).
#include "core/model/families/binding.h"

namespace qkv::families {
namespace {

void read(const ConfigReader& r, Architecture& c) {
    readRotaryDecoder(r, c);
    c.qkNorm = QkNorm::PerHead;
    c.layerKinds.assign(c.layers, LayerKind{});
    if (!r.has("sliding_window")) return;
    c.slidingWindow = r.positiveInt("sliding_window");
    const int pattern = r.positiveIntOr("sliding_window_pattern", 4);
    for (int l = 0; l < c.layers; ++l) c.layerKinds[l].local = (l + 1) % pattern != 0;
    readLayerTypes(r, c);
    for (LayerKind& kind : c.layerKinds) kind.rotary = kind.local;
}

}  // namespace

ModelFamily exaone4() {
    return {"exaone4", {"exaone4"}, {"model.", ""}, read, bindPostNormDecoder};
}

}  // namespace qkv::families
