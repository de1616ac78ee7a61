// Hunyuan dense (HunYuanDenseV1; keys under "model."): Llama's pre-norm decoder with an RMSNorm
// over each head of q and k (query_layernorm, key_layernorm) taken *after* rotary, and rotary
// "dynamic" with an alpha (NTK-alpha: base theta · alpha^(d/(d-2))); attention_bias on q, k, v
// and o.
#include "core/model/families/binding.h"

namespace qkv::families {
namespace {

void read(const ConfigReader& r, Architecture& c) {
    readRotaryDecoder(r, c);
    c.qkNorm = QkNorm::PerHead;
    c.qkNormAfterRotary = true;
    c.attentionBias = c.attentionOutputBias = r.boolOr("attention_bias", false);
    c.mlpBias = r.boolOr("mlp_bias", false);
}

ModelWeights bind(TensorBinder& b, const Architecture& c) {
    const int d = c.dModel;
    return bindDecoderStack(b, c, [&](const std::string& p, int, LayerWeights& layer) {
        layer.attentionNorm = rmsNorm(b, p + "input_layernorm", d);
        bindLlamaAttention(b, c, p + "self_attn.", c.attentionBias, layer, c.attentionOutputBias);
        layer.queryNorm = rmsNorm(b, p + "self_attn.query_layernorm", c.headDim);
        layer.keyNorm = rmsNorm(b, p + "self_attn.key_layernorm", c.headDim);
        layer.mlpNorm = rmsNorm(b, p + "post_attention_layernorm", d);
        bindGatedMlp(b, c, p + "mlp.", layer);
    });
}

}  // namespace

ModelFamily hunyuanV1Dense() {
    return {"hunyuan_v1_dense", {"hunyuan_v1_dense"}, {"model.", ""}, read, bind};
}

}  // namespace qkv::families
