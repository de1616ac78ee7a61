// GLM-4.5 and 4.6 (glm4_moe; keys under "model."): grouped-query attention with q, k and v
// biases (attention_bias; none on o), an RMSNorm over each head of q and k before rotary
// (use_qk_norm), rotary on the first partial_rotary_factor of each head (rotate-half), and from
// layer first_k_dense_replace on DeepSeek-V3's mixture of experts (sigmoid routing with a
// correction bias, groups, routed_scaling_factor, shared experts). The Hub's multi-token
// prediction layer (model.layers.<num_hidden_layers>) is not read. llama.cpp's "glm4moe" files
// open too.
#include "core/model/families/binding.h"
#include "core/model/gguf_config.h"

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

// llama.cpp's converter ("glm4moe"): heads key_length wide turned on their first
// rope.dimension_count dims; q/k/v biases and the QK-norm where the file has their tensors; the
// experts as DeepSeek-V3's, which the converter always routes by sigmoid; its multi-token
// prediction blocks (the last nextn_predict_layers of block_count) are not read.
nlohmann::json ggufConfig(const GgufModelReader& r, std::int64_t vocab, bool tied,
                          GgufTensors& tensors) {
    nlohmann::json c = ggufDecoderConfig(r, vocab, tied, "glm4_moe");  // head_dim: key_length
    const std::int64_t headDim = r.required("attention.key_length");
    const std::int64_t rotated = r.required("rope.dimension_count");
    if (rotated <= 0 || rotated > headDim)
        r.fail("GGUF metadata: rope.dimension_count " + std::to_string(rotated) +
               " does not fit heads " + std::to_string(headDim) + " wide");
    c["partial_rotary_factor"] = static_cast<double>(rotated) / static_cast<double>(headDim);
    c["attention_bias"] = tensors.count("blk.0.attn_q.bias") > 0;
    c["use_qk_norm"] = tensors.count("blk.0.attn_q_norm.weight") > 0;
    const std::int64_t blocks = r.required("block_count");
    const std::int64_t predicting = r.integer("nextn_predict_layers").value_or(0);
    if (predicting < 0 || predicting >= blocks)
        r.fail("GGUF metadata: nextn_predict_layers " + std::to_string(predicting) + " of " +
               std::to_string(blocks) + " blocks");
    c["num_hidden_layers"] = blocks - predicting;
    constexpr std::int64_t kSigmoid = 2;  // llama.cpp's expert_gating_func
    if (const auto gating = r.integer("expert_gating_func"); gating && *gating != kSigmoid)
        r.fail("GGUF metadata: expert_gating_func " + std::to_string(*gating) +
               " is not GLM's sigmoid routing (2)");
    ggufRoutedExperts(r, c, true);
    return c;
}

}  // namespace

ModelFamily glm4Moe() {
    ModelFamily f{"glm4_moe", {"glm4_moe"}, {"model.", ""}, read, bind};
    f.gguf = {.architectures = {"glm4moe"}, .config = ggufConfig};
    return f;
}

}  // namespace qkv::families
