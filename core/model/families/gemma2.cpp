// Gemma-2 (keys under "model."): the rotary decoder with
//   - head_dim independent of hidden_size / heads, embeddings multiplied by sqrt(hidden_size);
//   - RMSNorm scales stored as offsets from one (x / rms · (1 + w));
//   - four norms per layer: input -> attention -> post_attention_layernorm -> + residual, then
//     pre_feedforward -> MLP -> post_feedforward -> + residual;
//   - scores scaled by query_pre_attn_scalar^-1/2 and soft-capped, cap·tanh(s / cap), before the
//     mask; even layers see a sliding window of keys i - window < j <= i;
//   - GELU(tanh)-gated MLP; tied output with soft-capped logits.
#include <cmath>

#include "core/model/families/binding.h"
#include "core/model/gguf_config.h"

namespace qkv::families {
namespace {

void read(const ConfigReader& r, Architecture& c) {
    readRotaryShape(r, c, 8192, 256);  // HF Gemma2Config's defaults
    c.embeddingScale = std::sqrt(static_cast<float>(c.dModel));
    const std::string act =
        r.stringOr("hidden_activation", r.stringOr("hidden_act", "gelu_pytorch_tanh"));
    if (act != "gelu_pytorch_tanh" && act != "gelu_new")
        r.fail("hidden_activation \"" + act + "\" is not supported (only \"gelu_pytorch_tanh\")");
    c.activation = Activation::GeluTanhGlu;
    const float scalar = r.numberOr("query_pre_attn_scalar", 224.0f);  // HF's default
    if (!(scalar > 0.0f)) r.fail("\"query_pre_attn_scalar\" must be positive");
    c.attentionScale = 1.0f / std::sqrt(scalar);
    c.attentionSoftCap = r.numberOr("attn_logit_softcapping", 0.0f);
    c.logitSoftCap = r.numberOr("final_logit_softcapping", 0.0f);
    c.slidingWindow = r.positiveIntOr("sliding_window", 0);
    c.layerKinds.assign(c.layers, LayerKind{});
    for (int l = 0; l < c.layers; l += 2) c.layerKinds[l].local = true;
    readLayerTypes(r, c);  // transformers >= 4.53 writes the same pattern out
    c.tiedEmbeddings = r.boolOr("tie_word_embeddings", true);
    if (r.boolOr("attention_bias", false)) r.fail("attention_bias is not supported for Gemma-2");
}

ModelWeights bind(TensorBinder& b, const Architecture& c) { return bindGemmaDecoder(b, c); }

nlohmann::json ggufConfig(const GgufModelReader& r, std::int64_t vocab, bool tied, GgufTensors&) {
    nlohmann::json c = ggufDecoderConfig(r, vocab, tied, "gemma2");
    readGemmaGguf(r, c, 46);
    c["attn_logit_softcapping"] = r.number("attn_logit_softcapping").value_or(0.0);
    return c;
}

}  // namespace

ModelWeights bindGemmaDecoder(TensorBinder& b, const Architecture& c) {
    auto gemmaNorm = [&](const std::string& module, int size) -> NormWeights {
        return {b.unitOffsetNormWeight(module, size), {}};
    };
    const int d = c.dModel;
    ModelWeights w;
    w.tokenEmbedding = b.matrix("embed_tokens.weight", c.vocabSize, d);
    w.layers = bindLayers(c, "layers.", [&](const std::string& p, LayerWeights& layer) {
        layer.attentionNorm = gemmaNorm(p + "input_layernorm", d);
        bindLlamaAttention(b, c, p + "self_attn.", false, layer);
        if (c.qkNorm != QkNorm::None) bindQkNorm(b, c, p + "self_attn.", layer, true);
        layer.attentionOutputNorm = gemmaNorm(p + "post_attention_layernorm", d);
        layer.mlpNorm = gemmaNorm(p + "pre_feedforward_layernorm", d);
        bindGatedMlp(b, c, p + "mlp.", layer);
        layer.mlpOutputNorm = gemmaNorm(p + "post_feedforward_layernorm", d);
    });
    w.finalNorm = gemmaNorm("norm", d);
    w.lmHead.weight = outputProjection(b, c, "lm_head.weight", w.tokenEmbedding);
    return w;
}

ModelFamily gemma2() {
    ModelFamily f{"gemma2", {"gemma2"}, {"model.", ""}, read, bind};
    f.gguf = {.architectures = {"gemma2"},
              .config = ggufConfig,
              .layerNames = {{"ffn_norm", "pre_feedforward_layernorm"}},
              .normsStoredPlusOne = true};
    return f;
}

// transformers scales queries by query_pre_attn_scalar, which the file does not keep; llama.cpp
// by 1/sqrt(key_length), except for the 27B models (46 layers of Gemma 2, 62 of Gemma 3), which
// it tells apart by their layer count and scales by d_model / heads.
void readGemmaGguf(const GgufModelReader& r, nlohmann::json& c, std::int64_t largeLayers) {
    const std::int64_t d = c["hidden_size"], heads = c["num_attention_heads"],
                       layers = c["num_hidden_layers"];
    c["query_pre_attn_scalar"] =
        layers == largeLayers ? d / heads : r.integer("attention.key_length").value_or(d / heads);
    c["final_logit_softcapping"] = r.number("final_logit_softcapping").value_or(0.0);
    c["sliding_window"] = r.integer("attention.sliding_window").value_or(4096);
    c["hidden_activation"] = "gelu_pytorch_tanh";
}

}  // namespace qkv::families
