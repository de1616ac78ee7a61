// OLMo 2 (keys under "model."): Llama's decoder with the norms after each sublayer instead of
// before it — x + post_attention_layernorm(attn(x)), then x + post_feedforward_layernorm(mlp(x))
// — and QK-norm over the whole projection: q_norm (heads·d_k wide) and k_norm (kv·d_k) norm a
// token's full query and key vectors before they are split into heads and rotated. OLMo 3 is the
// same layer with sliding-window layers (layer_types; by default three of every four) beside full
// ones, each kind with its own rotary embedding (rope_parameters per layer type: YaRN on the full
// layers).
#include "core/model/families/binding.h"

namespace qkv::families {
namespace {

void read(const ConfigReader& r, Architecture& c) {
    readRotaryDecoder(r, c);
    c.qkNorm = QkNorm::Whole;
    if (r.boolOr("attention_bias", false)) r.fail("attention_bias is not supported for OLMo");
}

void readOlmo3(const ConfigReader& r, Architecture& c) {
    read(r, c);
    // Sliding layers turn unscaled unless rope_parameters gives them their own (transformers
    // 4.57 and 5 alike: YaRN only on the full layers).
    c.localRotary = readRotary(r, c.headDim, c.contextLength, {10000.0, "rope_theta", false},
                               "sliding_attention");
    c.slidingWindow = r.positiveIntOr("sliding_window", 4096);
    c.layerKinds.assign(c.layers, LayerKind{});
    for (int l = 0; l < c.layers; ++l) c.layerKinds[l].local = (l + 1) % 4 != 0;
    readLayerTypes(r, c);
}

}  // namespace

ModelWeights bindPostNormDecoder(TensorBinder& b, const Architecture& c) {
    const int d = c.dModel;
    return bindDecoderStack(b, c, [&](const std::string& p, int, LayerWeights& layer) {
        bindLlamaAttention(b, c, p + "self_attn.", false, layer);
        bindQkNorm(b, c, p + "self_attn.", layer);
        layer.attentionOutputNorm = rmsNorm(b, p + "post_attention_layernorm", d);
        bindGatedMlp(b, c, p + "mlp.", layer);
        layer.mlpOutputNorm = rmsNorm(b, p + "post_feedforward_layernorm", d);
    });
}

ModelFamily olmo2() {
    ModelFamily f{"olmo2", {"olmo2"}, {"model.", ""}, read, bindPostNormDecoder};
    f.gguf = {.architectures = {"olmo2"}};
    return f;
}

ModelFamily olmo3() { return {"olmo3", {"olmo3"}, {"model.", ""}, readOlmo3, bindPostNormDecoder}; }

}  // namespace qkv::families
