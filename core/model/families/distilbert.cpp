// DistilBERT: BERT's post-LN encoder with its own names (q_lin/k_lin/v_lin/out_lin,
// sa_layer_norm, ffn.lin1/lin2, output_layer_norm), learned positions from 0, no token types,
// LayerNorm eps fixed at 1e-12, and the head vocab_transform -> activation -> vocab_layer_norm ->
// vocab_projector (weight tied to the word embeddings).
#include "core/model/families/binding.h"

namespace qkv::families {
namespace {

void read(const ConfigReader& r, Architecture& c) {
    ShapeKeys keys;
    keys.layers = "n_layers";
    keys.heads = "n_heads";
    keys.dModel = "dim";
    keys.dFF = "hidden_dim";
    readStandardShape(r, c, 512, keys);
    c.kvHeads = c.heads;
    c.normEps = 1e-12f;
    c.activation = activationNamed(r, "activation", "gelu");
    c.headActivation = c.activation;
    c.preNorm = false;
    c.causal = false;
    c.tiedEmbeddings = r.boolOr("tie_word_embeddings", true);
}

ModelWeights bind(TensorBinder& b, const Architecture& c) {
    const int d = c.dModel;
    ModelWeights w;
    w.tokenEmbedding = b.matrix("embeddings.word_embeddings.weight", c.vocabSize, d);
    w.positionEmbedding = b.matrix("embeddings.position_embeddings.weight", c.contextLength, d);
    w.embeddingNorm = layerNorm(b, "embeddings.LayerNorm", d);
    w.layers = bindLayers(c, "transformer.layer.", [&](const std::string& p, LayerWeights& layer) {
        bindLinears(b, c, p,
                    {"attention.q_lin", "attention.k_lin", "attention.v_lin", "attention.out_lin",
                     "ffn.lin1", "ffn.lin2"},
                    true, layer);
        layer.attentionNorm = layerNorm(b, p + "sa_layer_norm", d);
        layer.mlpNorm = layerNorm(b, p + "output_layer_norm", d);
    });
    bindMaskedLmHead(b, c, w, "vocab_transform", "vocab_layer_norm", "vocab_projector.bias",
                     "vocab_projector.weight");
    return w;
}

}  // namespace

ModelFamily distilbert() {
    ModelFamily f{"distilbert", {"distilbert"}, {"distilbert.", ""}, read, bind};
    f.transformers = {
        .modelClass = HfModelClass::Encoder, .query = "q_lin", .key = "k_lin", .value = "v_lin"};
    return f;
}

}  // namespace qkv::families
