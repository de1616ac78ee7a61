// GLM-4.5 and 4.6 (glm4_moe; keys under "model."): grouped-query attention with q, k and v
// biases (attention_bias; none on o), an RMSNorm over each head of q and k before rotary
// (use_qk_norm), rotary on the first partial_rotary_factor of each head (rotate-half), and from
// layer first_k_dense_replace on DeepSeek-V3's mixture of experts (sigmoid routing with a
// correction bias, groups, routed_scaling_factor, shared experts). The Hub's multi-token
// prediction layer (model.layers.<num_hidden_layers>) is not read.
#include "core/model/families/binding.h"

namespace qkv::families {
namespace {

void read(const ConfigReader& r, Architecture& c) {
    readRotaryDecoder(r, c);
    c.attentionBias = r.boolOr("attention_bias", false);
    if (r.boolOr("use_qk_norm", false)) c.qkNorm = QkNorm::PerHead;
    readRoutedExperts(r, c, true);
}

ModelWeights bind(TensorBinder& b, const Architecture& c) {
    return bindLlamaDecoder(b, c, c.attentionBias, false,
                            [&](const std::string& p, int l, LayerWeights& layer) {
                                if (c.kindOf(l).experts)
                                    bindRoutedExperts(b, c, p + "mlp.", layer);
                                else
                                    bindGatedMlp(b, c, p + "mlp.", layer);
                            });
}

}  // namespace

ModelFamily glm4Moe() { return {"glm4_moe", {"glm4_moe"}, {"model.", ""}, read, bind}; }

}  // namespace qkv::families
