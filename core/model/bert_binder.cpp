// BERT (keys under "bert." as BertForMaskedLM saves them, or bare as BertModel does). Linear
// weights are stored [out, in]; LayerNorm parameters may carry the legacy gamma/beta names. The
// masked-LM head (cls.predictions.*) is optional: without it the model yields no logits.
#include "core/model/architecture_binders.h"

namespace qkv {
namespace {

LinearWeights linear(TensorBinder& b, const std::string& module, int in, int out) {
    return {b.matrix(module + ".weight", out, in).transposed(), b.vector(module + ".bias", out)};
}

NormWeights layerNorm(TensorBinder& b, const std::string& module, int size) {
    return {b.normWeight(module, size), b.normBias(module, size)};
}

}  // namespace

ModelWeights bindBert(TensorBinder& b, const ModelConfig& c) {
    const int d = c.dModel;
    ModelWeights w;
    w.tokenEmbedding = b.matrix("embeddings.word_embeddings.weight", c.vocabSize, d);
    w.positionEmbedding = b.matrix("embeddings.position_embeddings.weight", c.contextLength, d);
    w.tokenTypeEmbedding = b.matrix("embeddings.token_type_embeddings.weight", c.typeVocabSize, d);
    w.embeddingNorm = layerNorm(b, "embeddings.LayerNorm", d);
    for (int i = 0; i < c.layers; ++i) {
        const std::string p = "encoder.layer." + std::to_string(i) + ".";
        LayerWeights layer;
        layer.query = linear(b, p + "attention.self.query", d, d);
        layer.key = linear(b, p + "attention.self.key", d, d);
        layer.value = linear(b, p + "attention.self.value", d, d);
        layer.output = linear(b, p + "attention.output.dense", d, d);
        layer.attentionNorm = layerNorm(b, p + "attention.output.LayerNorm", d);
        layer.mlpIn = linear(b, p + "intermediate.dense", d, c.dFF);
        layer.mlpOut = linear(b, p + "output.dense", c.dFF, d);
        layer.mlpNorm = layerNorm(b, p + "output.LayerNorm", d);
        w.layers.push_back(layer);
    }
    if (b.has("cls.predictions.bias")) {
        w.headTransform = linear(b, "cls.predictions.transform.dense", d, d);
        w.headTransformNorm = layerNorm(b, "cls.predictions.transform.LayerNorm", d);
        w.lmHead.bias = b.vector("cls.predictions.bias", c.vocabSize);
        w.lmHead.weight = b.has("cls.predictions.decoder.weight") && !c.tiedEmbeddings
                              ? b.matrix("cls.predictions.decoder.weight", c.vocabSize, d).transposed()
                              : w.tokenEmbedding.transposed();
    }
    return w;
}

}  // namespace qkv
