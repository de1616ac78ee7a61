// BERT and RoBERTa: post-LN encoders with learned positions, token types and a masked-LM head.
//   bert      keys under "bert." (BertForMaskedLM) or bare (BertModel); LayerNorm parameters may
//             carry the legacy gamma/beta names; head cls.predictions.*.
//   roberta   keys under "roberta."; position of token i is padding_idx + 1 + i, so the table has
//             padding_idx + 1 rows more than the usable context; head lm_head.* (GELU).
// The masked-LM head is optional: without it the model yields no logits.
#include "core/model/families/binding.h"

namespace qkv::families {
namespace {

void readEncoder(const ConfigReader& r, Architecture& c) {
    readStandardShape(r, c, 512);
    c.kvHeads = c.heads;
    c.typeVocabSize = r.positiveIntOr("type_vocab_size", 2);
    c.normEps = r.numberOr("layer_norm_eps", 1e-12f);
    c.activation = activationNamed(r, "hidden_act", "gelu");
    c.headActivation = c.activation;
    c.preNorm = false;
    c.causal = false;
    c.tiedEmbeddings = r.boolOr("tie_word_embeddings", true);
    const std::string positions = r.stringOr("position_embedding_type", "absolute");
    if (positions != "absolute")
        r.fail("position_embedding_type \"" + positions +
               "\" is not supported (only \"absolute\")");
    if (r.boolOr("is_decoder", false)) r.fail("\"is_decoder\": true is not supported");
}

void readRoberta(const ConfigReader& r, Architecture& c) {
    readEncoder(r, c);
    c.positionOffset = r.nonNegativeIntOr("pad_token_id", 1) + 1;
    if (c.contextLength <= c.positionOffset)
        r.fail(
            "\"max_position_embeddings\" must exceed pad_token_id + 1 (RoBERTa positions "
            "start there)");
    c.contextLength -= c.positionOffset;
    c.headActivation = Activation::GeluExact;  // RobertaLMHead applies gelu whatever hidden_act
}

// Embeddings and layers, identical in BERT and RoBERTa.
ModelWeights bindEncoder(TensorBinder& b, const Architecture& c) {
    const int d = c.dModel;
    ModelWeights w;
    w.tokenEmbedding = b.matrix("embeddings.word_embeddings.weight", c.vocabSize, d);
    w.positionEmbedding =
        b.matrix("embeddings.position_embeddings.weight", c.contextLength + c.positionOffset, d);
    w.tokenTypeEmbedding = b.matrix("embeddings.token_type_embeddings.weight", c.typeVocabSize, d);
    w.embeddingNorm = layerNorm(b, "embeddings.LayerNorm", d);
    w.layers = bindLayers(c, "encoder.layer.", [&](const std::string& p, LayerWeights& layer) {
        bindLinears(b, c, p,
                    {"attention.self.query", "attention.self.key", "attention.self.value",
                     "attention.output.dense", "intermediate.dense", "output.dense"},
                    true, layer);
        layer.attentionNorm = layerNorm(b, p + "attention.output.LayerNorm", d);
        layer.mlpNorm = layerNorm(b, p + "output.LayerNorm", d);
    });
    return w;
}

ModelWeights bindBert(TensorBinder& b, const Architecture& c) {
    ModelWeights w = bindEncoder(b, c);
    bindMaskedLmHead(b, c, w, "cls.predictions.transform.dense",
                     "cls.predictions.transform.LayerNorm", "cls.predictions.bias",
                     "cls.predictions.decoder.weight");
    return w;
}

ModelWeights bindRoberta(TensorBinder& b, const Architecture& c) {
    ModelWeights w = bindEncoder(b, c);
    bindMaskedLmHead(b, c, w, "lm_head.dense", "lm_head.layer_norm", "lm_head.bias",
                     "lm_head.decoder.weight");
    return w;
}

}  // namespace

// transformers' BertSelfAttention, which RoBERTa's modules share.
constexpr HfAttentionLayout kBertAttention{
    .modelClass = HfModelClass::Encoder, .query = "query", .key = "key", .value = "value"};

ModelFamily bert() {
    ModelFamily f{"bert", {"bert"}, {"bert.", ""}, readEncoder, bindBert};
    f.transformers = kBertAttention;
    return f;
}

ModelFamily roberta() {
    ModelFamily f{"roberta",
                  {"roberta", "xlm-roberta", "camembert"},
                  {"roberta.", ""},
                  readRoberta,
                  bindRoberta};
    f.tokenizer.style = TokenizerHints::Style::Roberta;
    f.transformers = kBertAttention;
    return f;
}

}  // namespace qkv::families
