// Qwen3 (keys under "model."): Qwen2's decoder with QK-norm — an RMSNorm over each head of the
// queries and keys (q_norm, k_norm: head_dim wide) after the projection, before rotary — a
// head_dim of its own, and biases on q, k, v and o only when attention_bias is set. Layers at or
// above max_window_layers use sliding_window when use_sliding_window is set (layer_types says
// which, as transformers >= 4.53 writes it).
#include "core/model/families/binding.h"

namespace qkv::families {
namespace {

void read(const ConfigReader& r, Architecture& c) {
    readRotaryDecoder(r, c);
    c.qkNorm = QkNorm::PerHead;
    if (r.boolOr("use_sliding_window", false)) {
        c.slidingWindow = r.positiveIntOr("sliding_window", 4096);
        const int first = r.nonNegativeIntOr("max_window_layers", 28);
        c.layerKinds.assign(c.layers, LayerKind{});
        for (int l = first; l < c.layers; ++l) c.layerKinds[l].local = true;
        readLayerTypes(r, c);
    }
}

// Biases on q, k, v and o together (attention_bias), as the checkpoint holds them.
ModelWeights bind(TensorBinder& b, const Architecture& c) {
    const bool bias = b.has("layers.0.self_attn.q_proj.bias");
    return bindLlamaDecoder(b, c, bias, bias);
}

}  // namespace

ModelFamily qwen3() {
    ModelFamily f{"qwen3", {"qwen3"}, {"model.", ""}, read, bind, {"fp8"}};
    f.gguf = {.architectures = {"qwen3"}};
    return f;
}

}  // namespace qkv::families
