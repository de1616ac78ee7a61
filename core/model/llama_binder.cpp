// Llama / Mistral (keys under "model."). Linear weights are stored [out, in]; q_proj/k_proj rows
// are already in Hugging Face's rotate_half order. No biases; RMSNorm has weights only.
#include "core/model/architecture_binders.h"

namespace qkv {
namespace {

LinearWeights linear(TensorBinder& b, const std::string& module, int in, int out) {
    return {b.matrix(module + ".weight", out, in).transposed(), {}};
}

}  // namespace

ModelWeights bindLlama(TensorBinder& b, const ModelConfig& c) {
    const int d = c.dModel;
    const int qWidth = c.heads * c.headDim;
    const int kvWidth = c.kvHeads * c.headDim;
    ModelWeights w;
    w.tokenEmbedding = b.matrix("embed_tokens.weight", c.vocabSize, d);
    for (int i = 0; i < c.layers; ++i) {
        const std::string p = "layers." + std::to_string(i) + ".";
        LayerWeights layer;
        layer.attentionNorm = {b.normWeight(p + "input_layernorm", d), {}};
        layer.query = linear(b, p + "self_attn.q_proj", d, qWidth);
        layer.key = linear(b, p + "self_attn.k_proj", d, kvWidth);
        layer.value = linear(b, p + "self_attn.v_proj", d, kvWidth);
        layer.output = linear(b, p + "self_attn.o_proj", qWidth, d);
        layer.mlpNorm = {b.normWeight(p + "post_attention_layernorm", d), {}};
        layer.mlpGate = linear(b, p + "mlp.gate_proj", d, c.dFF);
        layer.mlpIn = linear(b, p + "mlp.up_proj", d, c.dFF);
        layer.mlpOut = linear(b, p + "mlp.down_proj", c.dFF, d);
        w.layers.push_back(layer);
    }
    w.finalNorm = {b.normWeight("norm", d), {}};
    if (b.has("lm_head.weight"))
        w.lmHead.weight = b.matrix("lm_head.weight", c.vocabSize, d).transposed();
    else if (c.tiedEmbeddings)
        w.lmHead.weight = w.tokenEmbedding.transposed();
    else
        w.lmHead.weight = b.matrix("lm_head.weight", c.vocabSize, d).transposed();  // throws
    return w;
}

}  // namespace qkv
