#include "core/model/families/post_norm_seq2seq.h"

#include <cmath>

namespace qkv::families {
namespace {

void bindAttention(TensorBinder& b, int d, const std::string& p, LinearWeights& q, LinearWeights& k,
                   LinearWeights& v, LinearWeights& o) {
    q = linearLayer(b, p + "q_proj", d, d, true);
    k = linearLayer(b, p + "k_proj", d, d, true);
    v = linearLayer(b, p + "v_proj", d, d, true);
    o = linearLayer(b, p + "out_proj", d, d, true);
}

}  // namespace

void readPostNormSeq2Seq(const ConfigReader& r, Architecture& c, const Seq2SeqDefaults& defaults) {
    c.dModel = r.width("d_model");
    c.vocabSize = r.positiveInt("vocab_size");
    c.layers = r.positiveInt("encoder_layers");
    c.heads = c.kvHeads = r.positiveInt("encoder_attention_heads");
    c.dFF = r.width("encoder_ffn_dim");
    c.decoderLayers = r.positiveInt("decoder_layers");
    c.decoderHeads = r.positiveInt("decoder_attention_heads");
    c.decoderFF = r.width("decoder_ffn_dim");
    if (c.dModel % c.decoderHeads != 0)
        r.fail("\"d_model\" is not divisible by \"decoder_attention_heads\"");
    c.decoderHeadDim = c.dModel / c.decoderHeads;
    const int pad = r.nonNegativeIntOr("pad_token_id", c.vocabSize - 1);
    c.decoderStartToken =
        r.nonNegativeIntOr("decoder_start_token_id",
                           defaults.decoderStartToken < 0 ? pad : defaults.decoderStartToken);
    c.eosToken = r.nonNegativeIntOr("eos_token_id", 0);
    if (r.positiveIntOr("decoder_vocab_size", c.vocabSize) != c.vocabSize ||
        !r.boolOr("share_encoder_decoder_embeddings", true))
        r.fail("separate source and target vocabularies are not supported");
    c.embeddingScale = r.boolOr("scale_embedding", defaults.scaleEmbedding)
                           ? std::sqrt(static_cast<float>(c.dModel))
                           : 1.0f;
    c.activation = activationNamed(r, "activation_function", defaults.activation);
    c.norm = NormKind::LayerNorm;
    c.normEps = 1e-5f;  // nn.LayerNorm's default, which these layers use
    c.preNorm = false;
    c.causal = false;
    c.tiedEmbeddings = r.boolOr("tie_word_embeddings", true);
    // Post-norm layers without a final norm; configs that say otherwise are mBART-style models
    // these readers do not describe.
    for (const char* key : {"normalize_before", "add_final_layer_norm"})
        if (r.boolOr(key, false)) r.fail("\"" + std::string(key) + "\": true is not supported");
}

ModelWeights bindPostNormSeq2Seq(TensorBinder& b, const Architecture& c) {
    const int d = c.dModel;
    ModelWeights w;
    w.tokenEmbedding = b.matrix("shared.weight", c.vocabSize, d);
    w.layers = bindLayers(c, "encoder.layers.", [&](const std::string& p, LayerWeights& layer) {
        bindAttention(b, d, p + "self_attn.", layer.query, layer.key, layer.value, layer.output);
        layer.attentionNorm = layerNorm(b, p + "self_attn_layer_norm", d);
        layer.mlpIn = linearLayer(b, p + "fc1", d, c.dFF, true);
        layer.mlpOut = linearLayer(b, p + "fc2", c.dFF, d, true);
        layer.mlpNorm = layerNorm(b, p + "final_layer_norm", d);
    });
    const Architecture decoder = c.decoderArchitecture();
    w.decoderLayers =
        bindLayers(decoder, "decoder.layers.", [&](const std::string& p, LayerWeights& layer) {
            bindAttention(b, d, p + "self_attn.", layer.query, layer.key, layer.value,
                          layer.output);
            layer.attentionNorm = layerNorm(b, p + "self_attn_layer_norm", d);
            bindAttention(b, d, p + "encoder_attn.", layer.crossQuery, layer.crossKey,
                          layer.crossValue, layer.crossOutput);
            layer.crossNorm = layerNorm(b, p + "encoder_attn_layer_norm", d);
            layer.mlpIn = linearLayer(b, p + "fc1", d, decoder.dFF, true);
            layer.mlpOut = linearLayer(b, p + "fc2", decoder.dFF, d, true);
            layer.mlpNorm = layerNorm(b, p + "final_layer_norm", d);
        });
    w.lmHead.weight = outputProjection(b, c, "lm_head.weight", w.tokenEmbedding);
    // A [1, vocab] buffer in the checkpoint; absent means zeros.
    if (b.has("final_logits_bias")) w.lmHead.bias = b.rowVector("final_logits_bias", c.vocabSize);
    return w;
}

}  // namespace qkv::families
