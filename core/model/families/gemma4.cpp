// Gemma 4 (keys under "model."; the multimodal Gemma4ForConditionalGeneration keeps its text
// stack under "model.language_model." and its description in "text_config"): Gemma 3's layer —
// √d embeddings, RMSNorms before and after each sublayer, QK-norm over each head, GELU(tanh)-gated
// MLP, local and global layers, tied output with soft-capped logits — with
//   - plain x·w RMSNorms (no 1 + w), and attention scores not scaled (the scale is 1);
//   - global layers with heads of their own width (global_head_dim) and, under
//     attention_k_eq_v, their own key/value heads (num_global_key_value_heads) and no v_proj:
//     the values are the key projection itself, before k_norm and rotary (K = V by design);
//   - v_norm, an RMSNorm without weights, on every layer's values;
//   - proportional rotary on global layers: a fraction of the pairs turn, the rest keep still;
//   - each layer's output multiplied by its layer_scalar.
// Keys a config leaves out take Gemma4TextConfig's defaults. What this reader does not compute is
// refused by name: per-layer input embeddings (hidden_size_per_layer_input, the E2B/E4B models),
// layers that reuse an earlier layer's keys and values (num_kv_shared_layers) and the
// mixture-of-experts block (enable_moe_block).
#include <cmath>

#include "core/model/families/binding.h"
#include "core/model/gguf_config.h"

namespace qkv::families {
namespace {

// The rotary embedding of a layer type; Gemma4TextConfig's defaults where rope_parameters is
// absent.
Rotary readGemma4Rotary(const ConfigReader& r, int headDim, int context, bool global) {
    if (r.has("rope_parameters"))
        return readRotary(r, headDim, context, {}, global ? "full_attention" : "sliding_attention");
    Rotary rotary;
    rotary.context = context;
    rotary.dims = headDim;
    rotary.theta = global ? 1e6 : 1e4;
    if (global) {
        rotary.scaling.type = RopeType::Proportional;
        rotary.scaling.rotatedPairs = static_cast<int>(0.25 * headDim / 2);
    }
    return rotary;
}

void refuseUnsupported(const ConfigReader& r) {
    if (r.nonNegativeIntOr("hidden_size_per_layer_input", 256) > 0)
        r.fail(
            "\"hidden_size_per_layer_input\" > 0: Gemma 4's per-layer input embeddings (the "
            "E2B and E4B models) are not supported yet");
    if (r.nonNegativeIntOr("num_kv_shared_layers", 0) > 0)
        r.fail(
            "\"num_kv_shared_layers\" > 0: layers that reuse an earlier layer's keys and "
            "values are not supported yet");
    if (r.boolOr("enable_moe_block", false))
        r.fail("\"enable_moe_block\": Gemma 4's mixture-of-experts block is not supported yet");
    if (r.boolOr("attention_bias", false)) r.fail("attention_bias is not supported for Gemma 4");
    if (r.stringOr("use_bidirectional_attention", "") == "all")
        r.fail("\"use_bidirectional_attention\": \"all\" (bidirectional Gemma 4) is not supported");
}

void readText(const ConfigReader& r, Architecture& c) {
    refuseUnsupported(r);
    c.layers = r.positiveIntOr("num_hidden_layers", 30);
    c.heads = r.positiveIntOr("num_attention_heads", 8);
    c.kvHeads = r.positiveIntOr("num_key_value_heads", 4);
    c.dModel = r.widthOr("hidden_size", 2304);
    c.dFF = r.widthOr("intermediate_size", 9216);
    c.vocabSize = r.positiveIntOr("vocab_size", 262144);
    c.contextLength = r.positiveIntOr("max_position_embeddings", 131072);
    c.headDim = r.widthOr("head_dim", 256);
    c.normEps = r.numberOr("rms_norm_eps", 1e-6f);
    c.norm = NormKind::RmsNorm;
    c.embeddingScale = std::sqrt(static_cast<float>(c.dModel));
    const std::string act = r.stringOr("hidden_activation", "gelu_pytorch_tanh");
    if (act != "gelu_pytorch_tanh" && act != "gelu_new")
        r.fail("hidden_activation \"" + act + "\" is not supported (only \"gelu_pytorch_tanh\")");
    c.activation = Activation::GeluTanhGlu;
    c.attentionScale = 1.0f;
    c.logitSoftCap = r.numberOr("final_logit_softcapping", 0.0f);
    c.slidingWindow = r.positiveIntOr("sliding_window", 512);
    c.qkNorm = QkNorm::PerHead;
    c.tiedEmbeddings = r.boolOr("tie_word_embeddings", true);

    // Five local layers per global one unless layer_types says otherwise; the last is global.
    c.layerKinds.assign(c.layers, LayerKind{});
    for (int l = 0; l < c.layers; ++l) c.layerKinds[l].local = (l + 1) % 6 != 0;
    readLayerTypes(r, c);
    c.layerKinds.back().local = false;  // as Gemma4TextConfig forces it
    // HF: global_head_dim where set (0: head_dim).
    const int globalHeadDim = r.nonNegativeIntOr("global_head_dim", 512);
    const bool keyIsValue = r.boolOr("attention_k_eq_v", false);
    const int globalKvHeads = keyIsValue && r.has("num_global_key_value_heads")
                                  ? r.positiveInt("num_global_key_value_heads")
                                  : 0;
    for (LayerKind& kind : c.layerKinds) {
        if (kind.local) continue;
        kind.headDim = globalHeadDim;
        kind.kvHeads = globalKvHeads;
        kind.valueIsKey = keyIsValue;
    }
    c.positions = Positions::Rotary;
    c.localRotary = readGemma4Rotary(r, c.headDim, c.contextLength, false);
    c.rotary =
        readGemma4Rotary(r, globalHeadDim > 0 ? globalHeadDim : c.headDim, c.contextLength, true);
}

void readMultimodal(const ConfigReader& r, Architecture& c) {
    readWrappedText(r, c, readText, "Gemma 4", "image and audio inputs");
    c.tiedEmbeddings = true;  // the wrapper's output head is its text embedding
}

ModelWeights bind(TensorBinder& b, const Architecture& model) {
    const int d = model.dModel;
    return bindDecoderStack(b, model, [&](const std::string& p, int l, LayerWeights& layer) {
        const Architecture c = model.atLayer(l);
        const std::string a = p + "self_attn.";
        layer.attentionNorm = rmsNorm(b, p + "input_layernorm", d);
        layer.query = linearLayer(b, a + "q_proj", d, c.heads * c.headDim, false);
        layer.key = linearLayer(b, a + "k_proj", d, c.kvHeads * c.headDim, false);
        layer.value = c.kindOf(l).valueIsKey
                          ? layer.key
                          : linearLayer(b, a + "v_proj", d, c.kvHeads * c.headDim, false);
        layer.output = linearLayer(b, a + "o_proj", c.heads * c.headDim, d, false);
        bindQkNorm(b, c, a, layer);
        layer.valueNorm.gamma = b.computedVector(std::vector<float>(c.headDim, 1.0f));
        layer.attentionOutputNorm = rmsNorm(b, p + "post_attention_layernorm", d);
        layer.mlpNorm = rmsNorm(b, p + "pre_feedforward_layernorm", d);
        bindGatedMlp(b, c, p + "mlp.", layer);
        layer.mlpOutputNorm = rmsNorm(b, p + "post_feedforward_layernorm", d);
        layer.outputScale = b.vector(p + "layer_scalar", 1)[0];
    });
}

// Gemma 4 ("gemma4"), whose layers differ by kind: attention.sliding_window_pattern marks the
// local ones, whose widths and rotary are key_length_swa, rope.freq_base_swa and
// rope.dimension_count_swa (key_length and rope.freq_base are the global layers'), and
// head_count_kv lists each layer's key/value heads. Global layers without attn_v take their
// values from the key projection (attention_k_eq_v). Their proportional rotary is the
// rope_freqs tensor: divisor 1 for the pairs that turn, 1e30 for those that keep still. Norms
// are stored as they are (no 1 + w).
nlohmann::json ggufConfig(const GgufModelReader& r, std::int64_t vocab, bool tied,
                          GgufTensors& tensors) {
    const std::int64_t layers = r.required("block_count");
    const std::string patternKey = r.arch + ".attention.sliding_window_pattern";
    const GgufArray* pattern = r.file.array(patternKey);
    if (!pattern || static_cast<std::int64_t>(pattern->size()) != layers)
        r.fail("GGUF metadata " + patternKey + " must mark each of the " + std::to_string(layers) +
               " layers local or global");
    std::vector<bool> local;
    for (const GgufValue& v : *pattern) {
        const bool* isLocal = std::get_if<bool>(&v.value);
        if (!isLocal) r.fail("GGUF metadata " + patternKey + " must hold booleans");
        local.push_back(*isLocal);
    }
    // Each kind's key/value heads: one count for all layers, or one per layer.
    std::optional<std::int64_t> kvHeads[2];  // [local, global]
    const std::string kvKey = r.arch + ".attention.head_count_kv";
    const GgufArray* perLayer = ggufArrayOrNull(r, "attention.head_count_kv");
    for (std::int64_t l = 0; l < layers; ++l) {
        const std::optional<std::int64_t> count =
            perLayer
                ? (l < static_cast<std::int64_t>(perLayer->size()) ? ggufInteger((*perLayer)[l])
                                                                   : std::nullopt)
                : r.integer("attention.head_count_kv");
        auto& kind = kvHeads[local[l] ? 0 : 1];
        if (!count || (kind && *kind != *count))
            r.fail("GGUF metadata " + kvKey + " must give every " +
                   (local[l] ? "local" : "global") + " layer the same key/value heads");
        kind = count;
    }
    const std::int64_t heads = r.required("attention.head_count");
    const std::int64_t globalHeadDim = r.required("attention.key_length"),
                       localHeadDim = r.required("attention.key_length_swa");
    nlohmann::json layerTypes = nlohmann::json::array();
    std::optional<std::int64_t> firstGlobal;
    for (std::int64_t l = 0; l < layers; ++l) {
        layerTypes.push_back(local[l] ? "sliding_attention" : "full_attention");
        if (!local[l] && !firstGlobal) firstGlobal = l;
    }
    const bool keyIsValue =
        firstGlobal && !tensors.count("blk." + std::to_string(*firstGlobal) + ".attn_v.weight");
    nlohmann::json full = {{"rope_type", "default"},
                           {"rope_theta", r.number("rope.freq_base").value_or(1e6)}};
    if (const auto factors = tensors.find("rope_freqs.weight"); factors != tensors.end()) {
        const GgufTensor& t = *factors->second;
        const std::vector<double> divisors = ggufFactorRow(r, t);
        if (divisors.size() != static_cast<std::size_t>(globalHeadDim / 2))
            r.fail("tensor " + t.describe() + ": Gemma 4's rotary divisors must be one per pair " +
                   "of a global head");
        std::int64_t turning = 0;
        for (std::size_t i = 0; i < divisors.size(); ++i) {
            if (divisors[i] == 1.0 && turning == static_cast<std::int64_t>(i))
                ++turning;
            else if (divisors[i] < 1e29)
                r.fail("tensor " + t.describe() + ": divisor " + std::to_string(divisors[i]) +
                       " of pair " + std::to_string(i) +
                       " is neither 1 (turning) nor 1e30 (still)");
        }
        full["rope_type"] = "proportional";
        full["partial_rotary_factor"] = 2.0 * static_cast<double>(turning) / globalHeadDim;
        tensors.erase(factors);
    }
    nlohmann::json sliding = {{"rope_type", "default"},
                              {"rope_theta", r.number("rope.freq_base_swa").value_or(1e4)}};
    if (const auto rotated = r.integer("rope.dimension_count_swa");
        rotated && *rotated != localHeadDim)
        sliding["partial_rotary_factor"] = static_cast<double>(*rotated) / localHeadDim;
    const auto feedForward =
        ggufArrayOrNull(r, "feed_forward_length") ? std::nullopt : r.integer("feed_forward_length");
    if (!feedForward)
        r.fail("GGUF metadata " + r.arch +
               ".feed_forward_length per layer (Gemma 4's double-wide MLPs of shared key/value "
               "layers) is not supported yet");
    return {
        {"model_type", "gemma4_text"},
        {"hidden_size", r.required("embedding_length")},
        {"num_hidden_layers", layers},
        {"intermediate_size", *feedForward},
        {"num_attention_heads", heads},
        {"num_key_value_heads", kvHeads[0].value_or(heads)},
        {"num_global_key_value_heads", kvHeads[1].value_or(heads)},
        {"head_dim", localHeadDim},
        {"global_head_dim", globalHeadDim},
        {"attention_k_eq_v", keyIsValue},
        {"vocab_size", vocab},
        {"max_position_embeddings", r.integer("context_length").value_or(131072)},
        {"rms_norm_eps", r.number("attention.layer_norm_rms_epsilon").value_or(1e-6)},
        {"tie_word_embeddings", tied},
        {"sliding_window", r.required("attention.sliding_window")},
        {"final_logit_softcapping", r.number("final_logit_softcapping").value_or(0.0)},
        {"hidden_activation", "gelu_pytorch_tanh"},
        {"layer_types", layerTypes},
        {"rope_parameters", {{"full_attention", full}, {"sliding_attention", sliding}}},
        // What the Gemma 4 reader refuses by name, as the file says it.
        {"hidden_size_per_layer_input", r.integer("embedding_length_per_layer_input").value_or(0)},
        {"num_kv_shared_layers", r.integer("attention.shared_kv_layers").value_or(0)},
        {"enable_moe_block", r.integer("expert_count").value_or(0) > 0},
    };
}

}  // namespace

// transformers' global layers have no v_proj: any copy is refused (python_tying.cpp).
ModelFamily gemma4() {
    ModelFamily f{"gemma4_text", {"gemma4_text"}, {"model.", ""}, readText, bind};
    f.gguf = {.architectures = {"gemma4"},
              .config = ggufConfig,
              .layerNames = {{"ffn_norm", "pre_feedforward_layernorm"}}};
    return f;
}

// transformers 5's module layout, and the original one.
ModelFamily gemma4Multimodal() {
    return {"gemma4",
            {"gemma4"},
            {"model.language_model.", "language_model.model."},
            readMultimodal,
            bind};
}

}  // namespace qkv::families
