// T5 (and Flan-T5, T5 v1.1, mT5): a pre-norm encoder-decoder without absolute positions.
//   - RMS norms without bias (T5LayerNorm), before each sublayer, and a final one per stack;
//   - no 1/√d_k: scores are the raw q·k, plus a relative position bias — a learned value per
//     head and bucket of the key-query offset, stored in each stack's first layer and added in
//     all of that stack's self-attention layers (bidirectional buckets in the encoder, causal
//     ones in the decoder), never in cross-attention;
//   - no biases; the MLP is wi → relu → wo, or gated (wi_0 gated by gelu_new, times wi_1);
//   - with tied embeddings the decoder's output is scaled by 1/√d_model before the head.
#include <cmath>

#include "core/model/families/binding.h"

namespace qkv::families {
namespace {

Activation feedForward(const ConfigReader& r) {
    const std::string proj = r.stringOr("feed_forward_proj", "relu");
    if (proj == "relu") return Activation::Relu;
    if (proj == "gelu") return Activation::GeluExact;
    if (proj == "gated-gelu") return Activation::GeluTanhGlu;  // HF maps it to gelu_new
    if (proj == "gated-silu") return Activation::SwiGlu;
    r.fail("unsupported \"feed_forward_proj\": \"" + proj + "\"");
}

void readT5(const ConfigReader& r, Architecture& c) {
    c.dModel = r.width("d_model");
    c.vocabSize = r.positiveInt("vocab_size");
    c.contextLength = r.positiveIntOr("n_positions", 512);
    c.layers = r.positiveInt("num_layers");
    c.heads = c.kvHeads = r.positiveInt("num_heads");
    c.headDim = r.width("d_kv");
    c.dFF = r.width("d_ff");
    c.decoderLayers = r.positiveIntOr("num_decoder_layers", c.layers);
    c.decoderHeads = c.heads;
    c.decoderHeadDim = c.headDim;
    c.decoderFF = c.dFF;
    c.decoderStartToken =
        r.nonNegativeIntOr("decoder_start_token_id", r.nonNegativeIntOr("pad_token_id", 0));
    c.eosToken = r.nonNegativeIntOr("eos_token_id", 1);
    c.relativeBuckets = r.positiveIntOr("relative_attention_num_buckets", 32);
    c.relativeMaxDistance = r.positiveIntOr("relative_attention_max_distance", 128);
    if (c.relativeBuckets < 4) r.fail("\"relative_attention_num_buckets\" must be at least 4");
    c.positions = Positions::Learned;  // no table: the relative bias is T5's only position
    c.attentionScale = 1.0f;
    c.norm = NormKind::RmsNorm;
    c.normEps = r.numberOr("layer_norm_epsilon", 1e-6f);
    c.preNorm = true;
    c.causal = false;
    c.activation = feedForward(r);
    c.tiedEmbeddings = r.boolOr("tie_word_embeddings", true);
    if (c.tiedEmbeddings) c.logitInputScale = 1.0f / std::sqrt(static_cast<float>(c.dModel));
}

void bindAttention(TensorBinder& b, const Architecture& c, const std::string& p, LinearWeights& q,
                   LinearWeights& k, LinearWeights& v, LinearWeights& o) {
    const int d = c.dModel, inner = c.heads * c.headDim;
    q = linearLayer(b, p + "q", d, inner, false);
    k = linearLayer(b, p + "k", d, inner, false);
    v = linearLayer(b, p + "v", d, inner, false);
    o = linearLayer(b, p + "o", inner, d, false);
}

void bindFeedForward(TensorBinder& b, const Architecture& c, const std::string& p,
                     LayerWeights& layer) {
    const int d = c.dModel;
    if (isGated(c.activation)) {
        layer.mlpGate = linearLayer(b, p + "DenseReluDense.wi_0", d, c.dFF, false);
        layer.mlpIn = linearLayer(b, p + "DenseReluDense.wi_1", d, c.dFF, false);
    } else {
        layer.mlpIn = linearLayer(b, p + "DenseReluDense.wi", d, c.dFF, false);
    }
    layer.mlpOut = linearLayer(b, p + "DenseReluDense.wo", c.dFF, d, false);
    layer.mlpNorm = rmsNorm(b, p + "layer_norm", d);
}

// One stack ("encoder" or "decoder"): its blocks — self-attention at layer.0, then (decoder)
// cross-attention at layer.1, then the MLP — its position bias table and its final norm.
std::vector<LayerWeights> bindStack(TensorBinder& b, const Architecture& c,
                                    const std::string& stack, MatrixView& relativeBias,
                                    NormWeights& finalNorm) {
    const int d = c.dModel;
    const bool decoder = stack == "decoder";
    auto layers = bindLayers(c, stack + ".block.", [&](const std::string& p, LayerWeights& layer) {
        bindAttention(b, c, p + "layer.0.SelfAttention.", layer.query, layer.key, layer.value,
                      layer.output);
        layer.attentionNorm = rmsNorm(b, p + "layer.0.layer_norm", d);
        if (decoder) {
            bindAttention(b, c, p + "layer.1.EncDecAttention.", layer.crossQuery, layer.crossKey,
                          layer.crossValue, layer.crossOutput);
            layer.crossNorm = rmsNorm(b, p + "layer.1.layer_norm", d);
        }
        bindFeedForward(b, c, p + (decoder ? "layer.2." : "layer.1."), layer);
    });
    relativeBias = b.matrix(stack + ".block.0.layer.0.SelfAttention.relative_attention_bias.weight",
                            c.relativeBuckets, c.heads);
    finalNorm = rmsNorm(b, stack + ".final_layer_norm", d);
    return layers;
}

ModelWeights bindT5(TensorBinder& b, const Architecture& c) {
    ModelWeights w;
    w.tokenEmbedding = b.matrix("shared.weight", c.vocabSize, c.dModel);
    w.layers = bindStack(b, c, "encoder", w.relativeBias, w.finalNorm);
    w.decoderLayers =
        bindStack(b, c.decoderArchitecture(), "decoder", w.decoderRelativeBias, w.decoderFinalNorm);
    w.lmHead.weight = outputProjection(b, c, "lm_head.weight", w.tokenEmbedding);
    return w;
}

}  // namespace

ModelFamily t5() {
    ModelFamily f{"t5", {"t5", "mt5"}, {""}, readT5, bindT5};
    f.transformers = {
        .modelClass = HfModelClass::Seq2SeqLm, .query = "q", .key = "k", .value = "v"};
    return f;
}

}  // namespace qkv::families
