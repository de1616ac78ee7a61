// OLMo 2 (keys under "model."): Llama's decoder with the norms after each sublayer instead of
// before it — x + post_attention_layernorm(attn(x)), then x + post_feedforward_layernorm(mlp(x))
// — and QK-norm over the whole projection: q_norm (heads·d_k wide) and k_norm (kv·d_k) norm a
// token's full query and key vectors before they are split into heads and rotated.
#include "core/model/families/binding.h"

namespace qkv::families {
namespace {

void read(const ConfigReader& r, Architecture& c) {
    readRotaryDecoder(r, c);
    c.qkNorm = QkNorm::Whole;
    if (r.boolOr("attention_bias", false)) r.fail("attention_bias is not supported for OLMo 2");
}

ModelWeights bind(TensorBinder& b, const Architecture& c) {
    const int d = c.dModel;
    return bindDecoderStack(b, c, [&](const std::string& p, int, LayerWeights& layer) {
        bindLlamaAttention(b, c, p + "self_attn.", false, layer);
        bindQkNorm(b, c, p + "self_attn.", layer);
        layer.attentionOutputNorm = rmsNorm(b, p + "post_attention_layernorm", d);
        bindGatedMlp(b, c, p + "mlp.", layer);
        layer.mlpOutputNorm = rmsNorm(b, p + "post_feedforward_layernorm", d);
    });
}

}  // namespace

ModelFamily olmo2() {
    ModelFamily f{"olmo2", {"olmo2"}, {"model.", ""}, read, bind};
    f.gguf = {.architectures = {"olmo2"}};
    return f;
}

}  // namespace qkv::families
