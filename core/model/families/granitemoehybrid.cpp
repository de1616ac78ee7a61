// Granite 4.0-H (granitemoehybrid, keys under "model."): pre-RMSNorm layers whose mixer is
// Mamba-2 (layer_types "mamba" or "linear_attention"; mamba.*, the gated norm over all of the
// heads' channels as one group, Δ within time_step_limit) or grouped-query attention
// ("attention" or "full_attention"; rotary only where position_embedding_type is "rope"), each
// followed by a mixture of experts (block_sparse_moe: the router's top-k logits softmaxed,
// experts fused as input_linear [experts, gate | up, d_model] and output_linear) plus a shared
// SwiGLU (shared_mlp, input_linear [gate | up]); with num_local_experts 0 the shared MLP alone.
// Granite's multipliers: embeddings × embedding_multiplier, scores × attention_multiplier (for
// head_dim^-1/2), each sublayer × residual_multiplier before its residual, logits ÷
// logits_scaling.
#include "core/model/families/mamba2.h"

namespace qkv::families {
namespace {

void read(const ConfigReader& r, Architecture& c) {
    readRotaryShape(r, c, 4096, 0);
    c.activation = Activation::SwiGlu;
    c.tiedEmbeddings = r.boolOr("tie_word_embeddings", true);
    c.attentionBias = r.boolOr("attention_bias", false);
    c.embeddingScale = r.numberOr("embedding_multiplier", 1.0f);
    c.attentionScale = r.numberOr("attention_multiplier", 0.0f);
    c.residualScale = r.numberOr("residual_multiplier", 1.0f);
    const float logitsScaling = r.numberOr("logits_scaling", 1.0f);
    if (logitsScaling <= 0.0f) r.fail("\"logits_scaling\" must be positive");
    c.logitInputScale = 1.0f / logitsScaling;
    const bool rotary = r.stringOr("position_embedding_type", "nope") == "rope";

    const LayerKind mamba = readMamba2(
        r, {"mamba_n_heads", "mamba_d_head", "mamba_n_groups", "mamba_d_state", "mamba_d_conv"}, c);
    c.mamba2.normGroups = 1;  // transformers norms all of the heads' channels at once
    readTimeStepLimit(r, c);
    const int experts = r.nonNegativeIntOr("num_local_experts", 0);
    if (experts > 0) {
        c.moe = readExperts(r, "num_local_experts", r.width("intermediate_size"), true);
        c.moe.router = Router::TopKSoftmax;
    }
    c.moe.sharedWidth = r.width("shared_intermediate_size");

    const std::vector<std::string> types = r.strings("layer_types");
    if (static_cast<int>(types.size()) != c.layers)
        r.fail("\"layer_types\" lists " + std::to_string(types.size()) + " layers; the model has " +
               std::to_string(c.layers));
    c.layerKinds.assign(c.layers, LayerKind{});
    for (int l = 0; l < c.layers; ++l) {
        if (types[l] == "mamba" || types[l] == "linear_attention")
            c.layerKinds[l] = mamba;
        else if (types[l] == "attention" || types[l] == "full_attention")
            c.layerKinds[l].rotary = rotary;
        else
            r.fail("\"layer_types\" entry \"" + types[l] +
                   "\" is not supported (mamba or attention)");
        c.layerKinds[l].experts = experts > 0;
    }
}

// A fused [gate | up] projection as the gated MLP's two slots: {up, gate}.
std::pair<LinearWeights, LinearWeights> gateAndUp(const MatrixView& inByOut, int width) {
    return {{inByOut.columns(width, width), {}}, {inByOut.columns(0, width), {}}};
}

void bindMlp(TensorBinder& b, const Architecture& c, const std::string& p, LayerWeights& layer) {
    const int d = c.dModel, shared = c.moe.sharedWidth;
    std::tie(layer.mlpIn, layer.mlpGate) = gateAndUp(
        b.matrix(p + "shared_mlp.input_linear.weight", 2 * shared, d).transposed(), shared);
    layer.mlpOut = linearLayer(b, p + "shared_mlp.output_linear", shared, d, false);
    if (!c.kindOf(0).experts) return;
    const int width = c.moe.width, count = c.moe.experts;
    const std::string moe = p + "block_sparse_moe.";
    layer.router = linearLayer(b, moe + "router.layer", d, count, false);
    for (int e = 0; e < count; ++e) {
        ExpertWeights expert;
        std::tie(expert.in, expert.gate) = gateAndUp(
            b.stackedMatrix(moe + "input_linear.weight", count, 2 * width, d, e).transposed(),
            width);
        expert.out = {
            b.stackedMatrix(moe + "output_linear.weight", count, d, width, e).transposed(), {}};
        layer.experts.push_back(expert);
    }
}

ModelWeights bind(TensorBinder& b, const Architecture& c) {
    return bindDecoderStack(b, c, [&](const std::string& p, int l, LayerWeights& layer) {
        layer.attentionNorm = rmsNorm(b, p + "input_layernorm", c.dModel);
        if (c.mixerOf(l) == Mixer::Mamba2)
            bindMamba2(b, c.atLayer(l), p + "mamba.", layer);
        else
            bindLlamaAttention(b, c, p + "self_attn.", c.attentionBias, layer, c.attentionBias);
        layer.mlpNorm = rmsNorm(b, p + "post_attention_layernorm", c.dModel);
        bindMlp(b, c, p, layer);
    });
}

}  // namespace

// transformers' q_proj, k_proj and v_proj under "self_attn."; a Mamba-2 layer's C, B and x are
// mamba.in_proj's rows.
ModelFamily graniteMoeHybrid() {
    return {"granitemoehybrid", {"granitemoehybrid"}, {"model.", ""}, read, bind};
}

}  // namespace qkv::families
