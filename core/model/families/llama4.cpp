// Llama 4 (llama4_text; keys under "model.") and the Hub's Llama4ForConditionalGeneration
// (llama4: its text_config, keys under "language_model.model.", the head
// language_model.lm_head.weight; the vision tower is not read). Llama's pre-norm decoder with
// two kinds of layer (no_rope_layers, layer_types):
// - RoPE layers: rotary on interleaved pairs (a complex product), attention within chunks of
//   attention_chunk_size positions (query i sees key j ≤ i of its own chunk), and with
//   use_qk_norm each head of q and k divided by its RMS after rotary (no weight);
// - NoPE layers: causal attention over every earlier key, no rotary, no norm, and with
//   attn_temperature_tuning the queries multiplied by 1 + attn_scale · ln(1 + ⌊(p + 1) /
//   floor_scale⌋).
// MLPs: SwiGLU of intermediate_size_mlp, or in moe_layers a mixture of num_local_experts experts
// of intermediate_size (feed_forward.experts.gate_up_proj [experts, d, gate | up] and down_proj
// [experts, width, d], stored as the product's inputs × outputs): the top num_experts_per_tok
// router logits pick the experts, and each one's sigmoid scales the token's input to its expert;
// a shared expert of the same width beside them.
#include <numeric>

#include "core/model/families/binding.h"

namespace qkv::families {
namespace {

std::vector<int> ropeLayers(const ConfigReader& r, int layers) {
    std::vector<int> rope(layers);
    const int interval = r.positiveIntOr("no_rope_layer_interval", 4);
    for (int l = 0; l < layers; ++l) rope[l] = (l + 1) % interval != 0;
    if (r.has("no_rope_layers")) {  // transformers keeps its default for an empty list
        const std::vector<int> given = r.integers("no_rope_layers");
        if (!given.empty()) {
            if (static_cast<int>(given.size()) < layers)
                r.fail("\"no_rope_layers\" names " + std::to_string(given.size()) + " layers of " +
                       std::to_string(layers));
            rope.assign(given.begin(), given.begin() + layers);
        }
    }
    return rope;
}

std::vector<bool> expertLayers(const ConfigReader& r, int layers) {
    std::vector<bool> experts(layers, false);
    if (r.has("moe_layers")) {
        for (int l : r.integers("moe_layers")) {
            if (l < 0 || l >= layers)
                r.fail("\"moe_layers\" names layer " + std::to_string(l) + " of " +
                       std::to_string(layers));
            experts[l] = true;
        }
        return experts;
    }
    const int step = r.positiveIntOr("interleave_moe_layer_step", 1);
    for (int l = step - 1; l < layers; l += step) experts[l] = true;
    return experts;
}

void read(const ConfigReader& r, Architecture& c) {
    readRotaryDecoder(r, c, {.dFF = "intermediate_size_mlp"});
    c.rotary.interleaved = true;
    c.attentionBias = r.boolOr("attention_bias", false);
    const int chunk = r.positiveIntOr("attention_chunk_size", 0);  // null: no chunks
    const std::vector<int> rope = ropeLayers(r, c.layers);
    std::vector<std::string> types;
    for (int l = 0; l < c.layers; ++l)
        types.push_back(rope[l] ? "chunked_attention" : "full_attention");
    if (r.has("layer_types")) types = r.strings("layer_types");
    if (static_cast<int>(types.size()) != c.layers)
        r.fail("\"layer_types\" names " + std::to_string(types.size()) + " layers of " +
               std::to_string(c.layers));
    c.attentionChunk = chunk;
    c.moe = readExperts(r, "num_local_experts", r.width("intermediate_size"), false);
    c.moe.router = Router::TopKSigmoid;
    c.moe.weighsInput = true;
    c.moe.sharedWidth = c.moe.width;
    const std::vector<bool> experts = expertLayers(r, c.layers);
    c.layerKinds.assign(c.layers, LayerKind{});
    for (int l = 0; l < c.layers; ++l) {
        if (types[l] != "chunked_attention" && types[l] != "full_attention")
            r.fail("\"layer_types\" \"" + types[l] + "\" is not supported");
        c.layerKinds[l].rotary = rope[l] != 0;
        c.layerKinds[l].chunked = types[l] == "chunked_attention" && chunk > 0;
        c.layerKinds[l].experts = experts[l];
    }
    // The L2 norm of q and k on RoPE layers: an RMSNorm of each head, after rotary, of unit
    // gains (bound as computed ones).
    if (r.boolOr("use_qk_norm", true)) {
        c.qkNorm = QkNorm::PerHead;
        c.qkNormAfterRotary = true;
    }
    // Some Hub configs write attn_temperature_tuning as a number (4): transformers tests its truth.
    if (r.truthOr("attn_temperature_tuning", true)) {
        c.queryTemperature.beta = r.numberOr("attn_scale", 0.1f);
        c.queryTemperature.interval = r.positiveIntOr("floor_scale", 8192);
        c.queryTemperature.offset = 1;
        c.queryTemperature.nopeLayersOnly = true;
    }
}

void readMultimodal(const ConfigReader& r, Architecture& c) {
    readWrappedText(r, c, read, "Llama 4");
    c.tiedEmbeddings = r.boolOr("tie_word_embeddings", false);  // transformers reads the top's
}

void bindFeedForward(TensorBinder& b, const Architecture& c, const std::string& p, int l,
                     LayerWeights& layer) {
    const int d = c.dModel;
    if (!c.kindOf(l).experts) {
        bindGatedMlp(b, c, p, layer);
        return;
    }
    const int experts = c.moe.experts, width = c.moe.width;
    layer.router = linearLayer(b, p + "router", d, experts, false);
    layer.experts.resize(experts);
    for (int e = 0; e < experts; ++e) {
        // Row-major [d, gate | up] and [width, d]: each already the product's in × out.
        const MatrixView gateUp =
            b.stackedMatrix(p + "experts.gate_up_proj", experts, d, 2 * width, e);
        layer.experts[e].gate = {gateUp.columns(0, width), {}};
        layer.experts[e].in = {gateUp.columns(width, width), {}};
        layer.experts[e].out = {b.stackedMatrix(p + "experts.down_proj", experts, width, d, e), {}};
    }
    const std::string shared = p + "shared_expert.";
    layer.mlpGate = linearLayer(b, shared + "gate_proj", d, width, false);
    layer.mlpIn = linearLayer(b, shared + "up_proj", d, width, false);
    layer.mlpOut = linearLayer(b, shared + "down_proj", width, d, false);
}

ModelWeights bind(TensorBinder& b, const Architecture& c) {
    const int d = c.dModel;
    return bindDecoderStack(b, c, [&](const std::string& p, int l, LayerWeights& layer) {
        layer.attentionNorm = rmsNorm(b, p + "input_layernorm", d);
        bindLlamaAttention(b, c, p + "self_attn.", c.attentionBias, layer, c.attentionBias);
        if (c.qkNorm != QkNorm::None && c.rotaryOf(l)) {
            const VectorView unit = b.computedVector(std::vector<float>(c.headDim, 1.0f));
            layer.queryNorm = {unit, {}};
            layer.keyNorm = {unit, {}};
        }
        layer.mlpNorm = rmsNorm(b, p + "post_attention_layernorm", d);
        bindFeedForward(b, c, p + "feed_forward.", l, layer);
    });
}

}  // namespace

ModelFamily llama4() { return {"llama4_text", {"llama4_text"}, {"model.", ""}, read, bind}; }

ModelFamily llama4Multimodal() {
    return {"llama4",
            {"llama4"},
            {"language_model.model.", "language_model.", "model.language_model.", "model.", ""},
            readMultimodal,
            bind};
}

}  // namespace qkv::families
