// DistilBERT: BERT's post-LN encoder with its own names (q_lin/k_lin/v_lin/out_lin,
// sa_layer_norm, ffn.lin1/lin2, output_layer_norm), learned positions from 0, no token types,
// LayerNorm eps fixed at 1e-12, and the head vocab_transform -> activation -> vocab_layer_norm ->
// vocab_projector (weight tied to the word embeddings).
#include "core/model/families/binding.h"

namespace qkv::families {
namespace {

void read(const ConfigReader& r, ModelConfig& c) {
    c.layers = r.positiveInt("n_layers");
    c.heads = r.positiveInt("n_heads");
    c.kvHeads = c.heads;
    c.dModel = r.width("dim");
    c.dFF = r.width("hidden_dim");
    c.vocabSize = r.positiveInt("vocab_size");
    c.contextLength = r.positiveIntOr("max_position_embeddings", 512);
    c.normEps = 1e-12f;
    c.activation = activationNamed(r, "activation", "gelu");
    c.headActivation = c.activation;
    c.preNorm = false;
    c.causal = false;
    c.tiedEmbeddings = r.boolOr("tie_word_embeddings", true);
}

ModelWeights bind(TensorBinder& b, const ModelConfig& c) {
    const int d = c.dModel;
    ModelWeights w;
    w.tokenEmbedding = b.matrix("embeddings.word_embeddings.weight", c.vocabSize, d);
    w.positionEmbedding = b.matrix("embeddings.position_embeddings.weight", c.contextLength, d);
    w.embeddingNorm = layerNorm(b, "embeddings.LayerNorm", d);
    for (int i = 0; i < c.layers; ++i) {
        const std::string p = "transformer.layer." + std::to_string(i) + ".";
        LayerWeights layer;
        layer.query = linearLayer(b, p + "attention.q_lin", d, d, true);
        layer.key = linearLayer(b, p + "attention.k_lin", d, d, true);
        layer.value = linearLayer(b, p + "attention.v_lin", d, d, true);
        layer.output = linearLayer(b, p + "attention.out_lin", d, d, true);
        layer.attentionNorm = layerNorm(b, p + "sa_layer_norm", d);
        layer.mlpIn = linearLayer(b, p + "ffn.lin1", d, c.dFF, true);
        layer.mlpOut = linearLayer(b, p + "ffn.lin2", c.dFF, d, true);
        layer.mlpNorm = layerNorm(b, p + "output_layer_norm", d);
        w.layers.push_back(layer);
    }
    if (b.has("vocab_projector.bias")) {
        w.headTransform = linearLayer(b, "vocab_transform", d, d, true);
        w.headTransformNorm = layerNorm(b, "vocab_layer_norm", d);
        w.lmHead.bias = b.vector("vocab_projector.bias", c.vocabSize);
        w.lmHead.weight = outputProjection(b, c, "vocab_projector.weight", w.tokenEmbedding);
    }
    return w;
}

}  // namespace

ModelFamily distilbert() { return {"distilbert", {"distilbert"}, {"distilbert.", ""}, read, bind}; }

}  // namespace qkv::families
