// Cohere 2 (Command R7B; keys under "model."): a parallel block, x + attn(h) + mlp(h) with
// h = LayerNorm(x) (one bias-free LayerNorm per layer, input_layernorm); sliding-window layers
// (layer_types, or three of every sliding_window_pattern) whose rotary turns interleaved pairs
// (2i, 2i + 1), and global layers without positions (NoPE); SwiGLU; the final LayerNorm's output
// times logit_scale before the tied lm_head.
#include "core/model/families/binding.h"

namespace qkv::families {
namespace {

void read(const ConfigReader& r, Architecture& c) {
    readRotaryDecoder(r, c);
    c.norm = NormKind::LayerNorm;
    c.normEps = r.numberOr("layer_norm_eps", 1e-5f);
    c.parallelResidual = true;
    c.rotary.interleaved = true;
    c.tiedEmbeddings = r.boolOr("tie_word_embeddings", true);
    c.logitInputScale = r.numberOr("logit_scale", 0.0625f);  // lm_head has no bias: the same
    c.attentionBias = c.attentionOutputBias = r.boolOr("attention_bias", false);
    c.slidingWindow = r.positiveIntOr("sliding_window", 4096);
    const int pattern = r.positiveIntOr("sliding_window_pattern", 4);
    c.layerKinds.assign(c.layers, LayerKind{});
    for (int l = 0; l < c.layers; ++l) c.layerKinds[l].local = (l + 1) % pattern != 0;
    readLayerTypes(r, c);
    for (LayerKind& kind : c.layerKinds) kind.rotary = kind.local;
}

ModelWeights bind(TensorBinder& b, const Architecture& c) {
    const int d = c.dModel;
    return bindDecoderStack(b, c, [&](const std::string& p, int, LayerWeights& layer) {
        layer.attentionNorm = rmsNorm(b, p + "input_layernorm", d);  // weight only
        layer.mlpNorm = layer.attentionNorm;  // both sublayers read the same normed input
        bindLlamaAttention(b, c, p + "self_attn.", c.attentionBias, layer, c.attentionOutputBias);
        bindGatedMlp(b, c, p + "mlp.", layer);
    });
}

}  // namespace

ModelFamily cohere2() { return {"cohere2", {"cohere2"}, {"model.", ""}, read, bind}; }

}  // namespace qkv::families
