// Marian (opus-mt translation models): a post-LayerNorm encoder-decoder.
//   - token embeddings shared by encoder, decoder and output head ("model.shared"), times
//     √d_model when scale_embedding;
//   - sinusoidal positions computed, not stored: for position p and column j < d/2,
//     sin(p / 10000^(2j/d)), and column d/2 + j the cosine of the same angle (MarianSinusoidal
//     PositionalEmbedding's layout: all sines, then all cosines);
//   - each layer norm(x + attention(x)), then (decoder) norm(x + cross-attention(x, encoder)),
//     then norm(x + fc2(act(fc1 x))), with biases everywhere and no final norm;
//   - logits over the decoder's output plus final_logits_bias.
#include <cmath>

#include "core/model/families/binding.h"

namespace qkv::families {
namespace {

void readMarian(const ConfigReader& r, Architecture& c) {
    c.dModel = r.width("d_model");
    c.vocabSize = r.positiveInt("vocab_size");
    c.contextLength = r.positiveIntOr("max_position_embeddings", 512);
    c.layers = r.positiveInt("encoder_layers");
    c.heads = c.kvHeads = r.positiveInt("encoder_attention_heads");
    c.dFF = r.width("encoder_ffn_dim");
    c.decoderLayers = r.positiveInt("decoder_layers");
    c.decoderHeads = r.positiveInt("decoder_attention_heads");
    c.decoderFF = r.width("decoder_ffn_dim");
    if (c.dModel % c.decoderHeads != 0)
        r.fail("\"d_model\" is not divisible by \"decoder_attention_heads\"");
    c.decoderHeadDim = c.dModel / c.decoderHeads;
    c.decoderStartToken = r.nonNegativeIntOr("decoder_start_token_id",
                                             r.nonNegativeIntOr("pad_token_id", c.vocabSize - 1));
    c.eosToken = r.nonNegativeIntOr("eos_token_id", 0);
    if (r.positiveIntOr("decoder_vocab_size", c.vocabSize) != c.vocabSize ||
        !r.boolOr("share_encoder_decoder_embeddings", true))
        r.fail("separate source and target vocabularies are not supported");
    c.embeddingScale =
        r.boolOr("scale_embedding", false) ? std::sqrt(static_cast<float>(c.dModel)) : 1.0f;
    c.activation = activationNamed(r, "activation_function", "swish");
    c.norm = NormKind::LayerNorm;
    c.normEps = 1e-5f;  // nn.LayerNorm's default, which Marian's layers use
    c.preNorm = false;
    c.causal = false;
    c.tiedEmbeddings = r.boolOr("tie_word_embeddings", true);
    // Marian's layers are post-norm without a final norm; configs that say otherwise are
    // mBART-style models this reader does not describe.
    for (const char* key : {"normalize_embedding", "normalize_before", "add_final_layer_norm"})
        if (r.boolOr(key, false)) r.fail("\"" + std::string(key) + "\": true is not supported");
}

// The table HF computes in float64 and stores as float32.
MatrixView sinusoidalPositions(TensorBinder& b, int positions, int d) {
    std::vector<float> table(static_cast<size_t>(positions) * d);
    const int sines = (d + 1) / 2;
    for (int p = 0; p < positions; ++p)
        for (int j = 0; j < d; ++j) {
            const int pair = j < sines ? j : j - sines;  // the angle's index 2·pair / d
            const double angle = p / std::pow(10000.0, 2.0 * pair / d);
            table[static_cast<size_t>(p) * d + j] =
                static_cast<float>(j < sines ? std::sin(angle) : std::cos(angle));
        }
    return b.computedMatrix(std::move(table), positions, d);
}

void bindAttention(TensorBinder& b, int d, const std::string& p, LinearWeights& q, LinearWeights& k,
                   LinearWeights& v, LinearWeights& o) {
    q = linearLayer(b, p + "q_proj", d, d, true);
    k = linearLayer(b, p + "k_proj", d, d, true);
    v = linearLayer(b, p + "v_proj", d, d, true);
    o = linearLayer(b, p + "out_proj", d, d, true);
}

ModelWeights bindMarian(TensorBinder& b, const Architecture& c) {
    const int d = c.dModel;
    ModelWeights w;
    w.tokenEmbedding = b.matrix("shared.weight", c.vocabSize, d);
    w.positionEmbedding = sinusoidalPositions(b, c.contextLength, d);
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

}  // namespace

ModelFamily marian() { return {"marian", {"marian"}, {"model.", ""}, readMarian, bindMarian}; }

}  // namespace qkv::families
