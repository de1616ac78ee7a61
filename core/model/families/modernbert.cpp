// ModernBERT (keys under "model.", the masked-LM head's "head." and "decoder." without): a
// bidirectional encoder with
//   - token embeddings LayerNorm-ed, no position table: rotary positions, global layers with
//     global_rope_theta and local ones with local_rope_theta;
//   - every global_attn_every_n_layers-th layer global (from layer 0), the others local: a key is
//     seen within local_attention / 2 of the query on either side;
//   - pre-LayerNorm blocks without biases (norm_bias false), no attention norm in layer 0;
//   - fused Wqkv = [q | k | v] rows, GeGLU MLP Wo(act(a) · b) with [a | b] = Wi x;
//   - head: dense -> classifier_activation -> LayerNorm -> decoder (tied) + decoder bias.
#include "core/model/families/binding.h"

namespace qkv::families {
namespace {

void read(const ConfigReader& r, Architecture& c) {
    readStandardShape(r, c, 8192);
    c.kvHeads = c.heads;
    c.headDim = headDimFromWidth(c, r.where());
    c.causal = false;
    c.norm = NormKind::LayerNorm;
    c.normEps = r.numberOr("norm_eps", 1e-5f);
    const Activation act = activationNamed(r, "hidden_activation", "gelu");
    if (act != Activation::GeluExact && act != Activation::GeluTanh)
        r.fail("\"hidden_activation\" must be a GELU for ModernBERT's gated MLP");
    c.activation = act == Activation::GeluExact ? Activation::GeluGlu : Activation::GeluTanhGlu;
    c.headActivation = activationNamed(r, "classifier_activation", "gelu");
    c.positions = Positions::Rotary;
    c.rotary = readRotary(r, c.headDim, c.contextLength, {160000.0, "global_rope_theta"});
    c.localRotary = readRotary(r, c.headDim, c.contextLength, {10000.0, "local_rope_theta", false});
    c.slidingWindow = r.positiveIntOr("local_attention", 128) / 2;  // keys within it either side
    const int every = r.positiveIntOr("global_attn_every_n_layers", 3);
    c.layerKinds.assign(c.layers, LayerKind{});
    for (int l = 0; l < c.layers; ++l) c.layerKinds[l].local = l % every != 0;
    c.tiedEmbeddings = r.boolOr("tie_word_embeddings", true);
    if (r.boolOr("attention_bias", false) || r.boolOr("mlp_bias", false))
        r.fail("attention_bias / mlp_bias are not supported for ModernBERT");
}

// A LayerNorm whose bias the checkpoint may leave out (norm_bias false).
NormWeights optionalBiasNorm(TensorBinder& b, const std::string& module, int size) {
    return {b.normWeight(module, size),
            b.has(module + ".bias") ? b.normBias(module, size) : VectorView{}};
}

ModelWeights bind(TensorBinder& b, const Architecture& c) {
    const int d = c.dModel;
    ModelWeights w;
    w.tokenEmbedding = b.matrix("embeddings.tok_embeddings.weight", c.vocabSize, d);
    w.embeddingNorm = optionalBiasNorm(b, "embeddings.norm", d);
    w.layers = bindLayers(c, "layers.", [&](const std::string& p, LayerWeights& layer) {
        if (b.has(p + "attn_norm.weight"))  // layer 0 has none (Identity)
            layer.attentionNorm = optionalBiasNorm(b, p + "attn_norm", d);
        const MatrixView qkv = b.matrix(p + "attn.Wqkv.weight", 3 * d, d).transposed();
        layer.query = {qkv.columns(0, d), {}};
        layer.key = {qkv.columns(d, d), {}};
        layer.value = {qkv.columns(2 * d, d), {}};
        layer.output = linearLayer(b, p + "attn.Wo", d, d, false);
        layer.mlpNorm = optionalBiasNorm(b, p + "mlp_norm", d);
        const MatrixView wi = b.matrix(p + "mlp.Wi.weight", 2 * c.dFF, d).transposed();
        layer.mlpGate = {wi.columns(0, c.dFF), {}};  // the half the activation applies to
        layer.mlpIn = {wi.columns(c.dFF, c.dFF), {}};
        layer.mlpOut = linearLayer(b, p + "mlp.Wo", c.dFF, d, false);
    });
    w.finalNorm = optionalBiasNorm(b, "final_norm", d);
    if (b.has("decoder.bias")) {  // a masked-LM checkpoint; a bare encoder has no logits
        w.headTransform = linearLayer(b, "head.dense", d, d, b.has("head.dense.bias"));
        w.headTransformNorm = optionalBiasNorm(b, "head.norm", d);
        w.lmHead.weight = outputProjection(b, c, "decoder.weight", w.tokenEmbedding);
        w.lmHead.bias = b.vector("decoder.bias", c.vocabSize);
    }
    return w;
}

}  // namespace

ModelFamily modernbert() { return {"modernbert", {"modernbert"}, {"model.", ""}, read, bind}; }

}  // namespace qkv::families
