// Gemma 3 (keys under "model."; the multimodal Gemma3ForConditionalGeneration keeps its text
// stack under "language_model.model." and its description in "text_config"): Gemma-2's layer —
// √d embeddings, (1 + w) RMSNorms before and after each sublayer, query_pre_attn_scalar^-1/2,
// GELU(tanh)-gated MLP, tied output — with
//   - QK-norm: a (1 + w) RMSNorm over each head of the queries and keys, before rotary;
//   - local and global layers (layer_types, or five local per global one by
//     sliding_window_pattern): local layers see a sliding window of keys and rotate with
//     rope_local_base_freq, unscaled; global ones with rope_theta and its rope_scaling.
// Keys a Hub config leaves out take Gemma3TextConfig's defaults. Only the text is read: an image
// input's tokens are not shown.
#include <cmath>

#include "core/model/families/binding.h"
#include "core/model/gguf_config.h"

namespace qkv::families {
namespace {

void readText(const ConfigReader& r, Architecture& c) {
    // Gemma3TextConfig's defaults (the Hub's multimodal configs omit most of them).
    c.layers = r.positiveIntOr("num_hidden_layers", 26);
    c.heads = r.positiveIntOr("num_attention_heads", 8);
    c.kvHeads = r.positiveIntOr("num_key_value_heads", 4);
    c.dModel = r.widthOr("hidden_size", 2304);
    c.dFF = r.widthOr("intermediate_size", 9216);
    c.vocabSize = r.positiveIntOr("vocab_size", 262208);
    c.contextLength = r.positiveIntOr("max_position_embeddings", 131072);
    c.headDim = r.widthOr("head_dim", 256);
    c.normEps = r.numberOr("rms_norm_eps", 1e-6f);
    c.norm = NormKind::RmsNorm;
    c.positions = Positions::Rotary;
    c.rotary = readRotary(r, c.headDim, c.contextLength, {1e6}, "full_attention");
    c.localRotary = readRotary(r, c.headDim, c.contextLength,
                               {10000.0, "rope_local_base_freq", false}, "sliding_attention");
    c.contextLength = c.rotary.longestInput();
    c.embeddingScale = std::sqrt(static_cast<float>(c.dModel));
    const std::string act = r.stringOr("hidden_activation", "gelu_pytorch_tanh");
    if (act != "gelu_pytorch_tanh" && act != "gelu_new")
        r.fail("hidden_activation \"" + act + "\" is not supported (only \"gelu_pytorch_tanh\")");
    c.activation = Activation::GeluTanhGlu;
    const float scalar = r.numberOr("query_pre_attn_scalar", 256.0f);
    if (!(scalar > 0.0f)) r.fail("\"query_pre_attn_scalar\" must be positive");
    c.attentionScale = 1.0f / std::sqrt(scalar);
    c.attentionSoftCap = r.numberOr("attn_logit_softcapping", 0.0f);
    c.logitSoftCap = r.numberOr("final_logit_softcapping", 0.0f);
    c.slidingWindow = r.positiveIntOr("sliding_window", 4096);
    const int pattern =
        r.positiveIntOr("sliding_window_pattern", r.positiveIntOr("_sliding_window_pattern", 6));
    c.layerKinds.assign(c.layers, LayerKind{});
    for (int l = 0; l < c.layers; ++l) c.layerKinds[l].local = (l + 1) % pattern != 0;
    readLayerTypes(r, c);
    c.qkNorm = QkNorm::PerHead;
    c.tiedEmbeddings = r.boolOr("tie_word_embeddings", true);
    if (r.boolOr("attention_bias", false)) r.fail("attention_bias is not supported for Gemma 3");
    if (r.boolOr("use_bidirectional_attention", false))
        r.fail("\"use_bidirectional_attention\": true (bidirectional Gemma 3) is not supported");
}

void readMultimodal(const ConfigReader& r, Architecture& c) {
    readWrappedText(r, c, readText, "Gemma 3");
    c.tiedEmbeddings = true;  // the wrapper's output head is its text embedding
}

nlohmann::json ggufConfig(const GgufModelReader& r, std::int64_t vocab, bool tied, GgufTensors&) {
    nlohmann::json c = ggufDecoderConfig(r, vocab, tied, "gemma3_text");
    readGemmaGguf(r, c, 62);
    // Fixed in llama.cpp for Gemma 3, as in transformers' defaults: five local layers per global
    // one, and local layers turning at base 10000, unscaled.
    c["sliding_window_pattern"] = 6;
    c["rope_local_base_freq"] = 10000.0;
    return c;
}

}  // namespace

ModelFamily gemma3() {
    ModelFamily f{"gemma3_text", {"gemma3_text"}, {"model.", ""}, readText, bindGemmaDecoder};
    f.gguf = {.architectures = {"gemma3"},
              .config = ggufConfig,
              .layerNames = {{"ffn_norm", "pre_feedforward_layernorm"}},
              .normsStoredPlusOne = true};
    return f;
}

// The Hub's original layout (language_model.model.*) and transformers 5's module layout.
ModelFamily gemma3Multimodal() {
    return {"gemma3",
            {"gemma3"},
            {"language_model.model.", "model.language_model."},
            readMultimodal,
            bindGemmaDecoder};
}

}  // namespace qkv::families
