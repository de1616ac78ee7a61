// OPT (keys under "model.decoder."): a decoder with learned positions offset by 2 (token i reads
// row i + 2 of embed_positions), biases on every projection, ReLU MLP (fc1/fc2) and the output
// tied to embed_tokens. q is scaled by d_k^-1/2 before q·k, which is the usual score scale.
// Pre-LayerNorm with a final_layer_norm; OPT-350m instead norms after each residual
// (do_layer_norm_before: false), has no final norm, and keeps its token embeddings
// word_embed_proj_dim wide: project_in lifts them to hidden_size before the positions are added,
// project_out lowers the last hidden state to the (tied) output head.
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
    const int words = r.widthOr("word_embed_proj_dim", c.dModel);
    if (words != c.dModel) c.embeddingWidth = words;
    c.preNorm = r.boolOr("do_layer_norm_before", true);
    if (!r.boolOr("enable_bias", true) || !r.boolOr("layer_norm_elementwise_affine", true) ||
        r.boolOr("_remove_final_layer_norm", false))
        r.fail("OPT without biases, affine LayerNorms or final_layer_norm is not supported");
}

ModelWeights bind(TensorBinder& b, const Architecture& c) {
    const int d = c.dModel;
    ModelWeights w;
    w.tokenEmbedding = b.matrix("embed_tokens.weight", c.vocabSize, c.tokenWidth());
    if (c.embeddingWidth > 0) {
        w.embeddingProjection = linearLayer(b, "project_in", c.embeddingWidth, d, false);
        w.outputProjection = linearLayer(b, "project_out", d, c.embeddingWidth, false);
    }
    w.positionEmbedding = b.matrix("embed_positions.weight", c.contextLength + c.positionOffset, d);
    w.layers = bindLayers(c, "layers.", [&](const std::string& p, LayerWeights& layer) {
        bindLinears(b, c, p,
                    {"self_attn.q_proj", "self_attn.k_proj", "self_attn.v_proj",
                     "self_attn.out_proj", "fc1", "fc2"},
                    true, layer);
        layer.attentionNorm = layerNorm(b, p + "self_attn_layer_norm", d);
        layer.mlpNorm = layerNorm(b, p + "final_layer_norm", d);
    });
    if (c.preNorm) w.finalNorm = layerNorm(b, "final_layer_norm", d);
    w.lmHead.weight = outputProjection(b, c, "lm_head.weight", w.tokenEmbedding);
    return w;
}

}  // namespace

// Its GPT-2 tokenizer prepends </s> whatever add_bos_token says.
ModelFamily opt() {
    ModelFamily f{"opt", {"opt"}, {"model.decoder.", "decoder.", ""}, read, bind};
    f.tokenizer.alwaysAddsBos = true;
    return f;
}

}  // namespace qkv::families
