// OPT (keys under "model.decoder."): pre-LayerNorm decoder with learned positions offset by 2
// (token i reads row i + 2 of embed_positions), biases on every projection, ReLU MLP
// (fc1/fc2), a final_layer_norm and the output tied to embed_tokens. q is scaled by d_k^-1/2
// before q·k, which is the usual score scale. The variants with project_in/out
// (word_embed_proj_dim ≠ hidden_size) or post-LayerNorm (OPT-350m) are refused.
#include "core/model/families/binding.h"

namespace qkv::families {
namespace {

constexpr int kPositionOffset = 2;  // HF OPTLearnedPositionalEmbedding

void read(const ConfigReader& r, Architecture& c) {
    ShapeKeys keys;
    keys.dFF = "ffn_dim";
    readStandardShape(r, c, 2048, keys);
    c.kvHeads = c.heads;
    c.positionOffset = kPositionOffset;
    c.activation = activationNamed(r, "activation_function", "relu");
    c.tiedEmbeddings = r.boolOr("tie_word_embeddings", true);
    if (r.widthOr("word_embed_proj_dim", c.dModel) != c.dModel)
        r.fail(
            "\"word_embed_proj_dim\" differs from \"hidden_size\" (OPT's project_in/out) and "
            "is not supported");
    if (!r.boolOr("do_layer_norm_before", true))
        r.fail("\"do_layer_norm_before\": false (post-LayerNorm OPT) is not supported");
    if (!r.boolOr("enable_bias", true) || !r.boolOr("layer_norm_elementwise_affine", true) ||
        r.boolOr("_remove_final_layer_norm", false))
        r.fail("OPT without biases, affine LayerNorms or final_layer_norm is not supported");
}

ModelWeights bind(TensorBinder& b, const Architecture& c) {
    const int d = c.dModel;
    ModelWeights w;
    w.tokenEmbedding = b.matrix("embed_tokens.weight", c.vocabSize, d);
    w.positionEmbedding = b.matrix("embed_positions.weight", c.contextLength + c.positionOffset, d);
    w.layers = bindLayers(c, "layers.", [&](const std::string& p, LayerWeights& layer) {
        bindLinears(b, c, p,
                    {"self_attn.q_proj", "self_attn.k_proj", "self_attn.v_proj",
                     "self_attn.out_proj", "fc1", "fc2"},
                    true, layer);
        layer.attentionNorm = layerNorm(b, p + "self_attn_layer_norm", d);
        layer.mlpNorm = layerNorm(b, p + "final_layer_norm", d);
    });
    w.finalNorm = layerNorm(b, "final_layer_norm", d);
    w.lmHead.weight = outputProjection(b, c, "lm_head.weight", w.tokenEmbedding);
    return w;
}

}  // namespace

ModelFamily opt() { return {"opt", {"opt"}, {"model.decoder.", "decoder.", ""}, read, bind}; }

}  // namespace qkv::families
