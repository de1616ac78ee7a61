// GPT-2 (Hub "gpt2" keys without prefix; fine-tuned saves under "transformer."). Conv1D weights
// are stored [in, out] with q | k | v fused column-wise in c_attn. h.N.attn.bias / masked_bias
// are causal-mask buffers and are ignored.
#include "core/model/architecture_binders.h"

namespace qkv {

ModelWeights bindGpt2(TensorBinder& b, const ModelConfig& c) {
    const int d = c.dModel;
    ModelWeights w;
    w.tokenEmbedding = b.matrix("wte.weight", c.vocabSize, d);
    w.positionEmbedding = b.matrix("wpe.weight", c.contextLength, d);
    for (int i = 0; i < c.layers; ++i) {
        const std::string p = "h." + std::to_string(i) + ".";
        LayerWeights layer;
        layer.attentionNorm = {b.normWeight(p + "ln_1", d), b.normBias(p + "ln_1", d)};
        const MatrixView qkv = b.matrix(p + "attn.c_attn.weight", d, 3 * d);
        const VectorView qkvBias = b.vector(p + "attn.c_attn.bias", 3 * d);
        layer.query = {qkv.columns(0, d), qkvBias.slice(0, d)};
        layer.key = {qkv.columns(d, d), qkvBias.slice(d, d)};
        layer.value = {qkv.columns(2 * d, d), qkvBias.slice(2 * d, d)};
        layer.output = {b.matrix(p + "attn.c_proj.weight", d, d), b.vector(p + "attn.c_proj.bias", d)};
        layer.mlpNorm = {b.normWeight(p + "ln_2", d), b.normBias(p + "ln_2", d)};
        layer.mlpIn = {b.matrix(p + "mlp.c_fc.weight", d, c.dFF), b.vector(p + "mlp.c_fc.bias", c.dFF)};
        layer.mlpOut = {b.matrix(p + "mlp.c_proj.weight", c.dFF, d), b.vector(p + "mlp.c_proj.bias", d)};
        w.layers.push_back(layer);
    }
    w.finalNorm = {b.normWeight("ln_f", d), b.normBias("ln_f", d)};
    if (!c.tiedEmbeddings && b.has("lm_head.weight"))
        w.lmHead.weight = b.matrix("lm_head.weight", c.vocabSize, d).transposed();
    else
        w.lmHead.weight = w.tokenEmbedding.transposed();
    return w;
}

}  // namespace qkv
