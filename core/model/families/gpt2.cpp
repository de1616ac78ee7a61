// GPT-2 (Hub "gpt2" keys without prefix; fine-tuned saves under "transformer."). Conv1D weights
// are stored [in, out] with q | k | v fused column-wise in c_attn. h.N.attn.bias / masked_bias
// are causal-mask buffers and are ignored.
#include "core/model/families/binding.h"

namespace qkv::families {
namespace {

void read(const ConfigReader& r, Architecture& c) {
    c.layers = r.positiveInt("n_layer");
    c.heads = r.positiveInt("n_head");
    c.kvHeads = c.heads;
    c.dModel = r.width("n_embd");
    c.dFF = r.widthOr("n_inner", 4 * c.dModel);
    c.vocabSize = r.positiveInt("vocab_size");
    c.contextLength = r.positiveIntOr("n_positions", r.positiveIntOr("n_ctx", 1024));
    c.normEps = r.numberOr("layer_norm_epsilon", 1e-5f);
    c.activation = activationNamed(r, "activation_function", "gelu_new");
    c.tiedEmbeddings = r.boolOr("tie_word_embeddings", true);
    if (!r.boolOr("scale_attn_weights", true) ||
        r.boolOr("scale_attn_by_inverse_layer_idx", false) ||
        r.boolOr("reorder_and_upcast_attn", false))
        r.fail(
            "GPT-2 attention-scaling variants (scale_attn_weights=false, "
            "scale_attn_by_inverse_layer_idx, reorder_and_upcast_attn) are not supported");
}

// c_attn's q | k | v columns.
ModelWeights bind(TensorBinder& b, const Architecture& c) {
    const int d = c.dModel;
    return bindGpt2Stack(b, c, [&](const std::string& p, LayerWeights& layer) {
        const MatrixView qkv = b.matrix(p + "attn.c_attn.weight", d, 3 * d);
        const VectorView qkvBias = b.vector(p + "attn.c_attn.bias", 3 * d);
        layer.query = {qkv.columns(0, d), qkvBias.slice(0, d)};
        layer.key = {qkv.columns(d, d), qkvBias.slice(d, d)};
        layer.value = {qkv.columns(2 * d, d), qkvBias.slice(2 * d, d)};
    });
}

}  // namespace

ModelWeights bindGpt2Stack(TensorBinder& b, const Architecture& c,
                           const LayerPartBinder& attention) {
    const int d = c.dModel;
    ModelWeights w;
    w.tokenEmbedding = b.matrix("wte.weight", c.vocabSize, d);
    w.positionEmbedding = b.matrix("wpe.weight", c.contextLength, d);
    w.layers = bindLayers(c, "h.", [&](const std::string& p, LayerWeights& layer) {
        layer.attentionNorm = layerNorm(b, p + "ln_1", d);
        attention(p, layer);
        layer.output = {b.matrix(p + "attn.c_proj.weight", d, d),
                        b.vector(p + "attn.c_proj.bias", d)};
        layer.mlpNorm = layerNorm(b, p + "ln_2", d);
        layer.mlpIn = {b.matrix(p + "mlp.c_fc.weight", d, c.dFF),
                       b.vector(p + "mlp.c_fc.bias", c.dFF)};
        layer.mlpOut = {b.matrix(p + "mlp.c_proj.weight", c.dFF, d),
                        b.vector(p + "mlp.c_proj.bias", d)};
    });
    w.finalNorm = layerNorm(b, "ln_f", d);
    w.lmHead.weight = outputProjection(b, c, "lm_head.weight", w.tokenEmbedding);
    return w;
}

ModelFamily gpt2() {
    ModelFamily f{"gpt2", {"gpt2"}, {"", "transformer."}, read, bind};
    f.transformers = {
        .layout = HfProjectionLayout::FusedColumns, .query = "c_attn", .key = "", .value = ""};
    return f;
}

}  // namespace qkv::families
