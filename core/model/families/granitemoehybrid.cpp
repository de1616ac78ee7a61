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
#include "core/model/gguf_config.h"

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

// The shared MLP and the experts, fused as the Hub keeps them or, from a GGUF file, with gate
// and up apart (gate_proj, up_proj: the converter's split of input_linear).
void bindMlp(TensorBinder& b, const Architecture& c, const std::string& p, LayerWeights& layer) {
    const int d = c.dModel, shared = c.moe.sharedWidth;
    const std::string mlp = p + "shared_mlp.";
    if (b.has(mlp + "gate_proj.weight")) {
        layer.mlpGate = linearLayer(b, mlp + "gate_proj", d, shared, false);
        layer.mlpIn = linearLayer(b, mlp + "up_proj", d, shared, false);
    } else {
        std::tie(layer.mlpIn, layer.mlpGate) =
            gateAndUp(b.matrix(mlp + "input_linear.weight", 2 * shared, d).transposed(), shared);
    }
    layer.mlpOut = linearLayer(b, mlp + "output_linear", shared, d, false);
    if (!c.kindOf(0).experts) return;
    const int width = c.moe.width, count = c.moe.experts;
    const std::string moe = p + "block_sparse_moe.";
    layer.router = linearLayer(b, moe + "router.layer", d, count, false);
    if (!b.has(moe + "input_linear.weight")) {
        for (int e = 0; e < count; ++e) {
            const std::string expert = moe + "experts." + std::to_string(e) + ".";
            layer.experts.push_back({linearLayer(b, expert + "up_proj", d, width, false),
                                     linearLayer(b, expert + "gate_proj", d, width, false),
                                     linearLayer(b, expert + "output_linear", width, d, false)});
        }
        return;
    }
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

// llama.cpp's granitehybrid files: attention.head_count_kv per layer (0: Mamba-2), Granite's
// multipliers as embedding_scale, attention.scale, residual_scale and logit_scale, rotary only
// where rope.scaling.finetuned says the model uses it (the converter's flag for it).
nlohmann::json ggufConfig(const GgufModelReader& r, std::int64_t vocab, bool tied, GgufTensors&) {
    nlohmann::json c = ggufDecoderConfig(r, vocab, tied, "granitemoehybrid");
    nlohmann::json types = nlohmann::json::array();
    std::int64_t most = 0;
    for (std::int64_t heads : ggufKeyValueHeadsPerLayer(r, "a Mamba-2 layer")) {
        types.push_back(heads == 0 ? "mamba" : "attention");
        most = std::max(most, heads);
    }
    const std::int64_t mambaHeads = r.required("ssm.time_step_rank"),
                       inner = r.required("ssm.inner_size");
    if (mambaHeads < 1 || inner % mambaHeads != 0)
        r.fail("GGUF metadata " + r.arch + ".ssm.inner_size (" + std::to_string(inner) +
               ") is not a whole number of Mamba heads (ssm.time_step_rank " +
               std::to_string(mambaHeads) + ")");
    c["layer_types"] = types;
    c["num_key_value_heads"] = most > 0 ? most : c["num_attention_heads"].get<std::int64_t>();
    c["mamba_n_heads"] = mambaHeads;
    c["mamba_d_head"] = inner / mambaHeads;
    c["mamba_n_groups"] = r.required("ssm.group_count");
    c["mamba_d_state"] = r.required("ssm.state_size");
    c["mamba_d_conv"] = r.required("ssm.conv_kernel");
    c["num_local_experts"] = r.integer("expert_count").value_or(0);
    if (const auto perToken = r.integer("expert_used_count")) c["num_experts_per_tok"] = *perToken;
    c["shared_intermediate_size"] =
        r.integer("expert_shared_feed_forward_length").value_or(c["intermediate_size"]);
    for (const auto& [gguf, hf] : {std::pair{"embedding_scale", "embedding_multiplier"},
                                   {"attention.scale", "attention_multiplier"},
                                   {"residual_scale", "residual_multiplier"},
                                   {"logit_scale", "logits_scaling"}})
        if (const auto value = r.number(gguf)) c[hf] = *value;
    const bool rotary = r.file.boolean(r.arch + ".rope.scaling.finetuned").value_or(false);
    c["position_embedding_type"] = rotary ? "rope" : "nope";
    return c;
}

// The converter's names: Mamba-2's ssm_* (A and D without a suffix), the experts stacked with
// gate and up apart, the shared MLP as *_shexp.
std::string ggufName(const std::string& name) {
    static const std::map<std::string, std::string> kTop = {
        {"token_embd", "model.embed_tokens"}, {"output_norm", "model.norm"}, {"output", "lm_head"}};
    static const std::map<std::string, std::string> kLayer = {
        {"attn_norm", "input_layernorm"},
        {"ffn_norm", "post_attention_layernorm"},
        {"attn_q", "self_attn.q_proj"},
        {"attn_k", "self_attn.k_proj"},
        {"attn_v", "self_attn.v_proj"},
        {"attn_output", "self_attn.o_proj"},
        {"ssm_in", "mamba.in_proj"},
        {"ssm_conv1d", "mamba.conv1d"},
        {"ssm_norm", "mamba.norm"},
        {"ssm_out", "mamba.out_proj"},
        {"ssm_a", "mamba.A_log"},
        {"ssm_d", "mamba.D"},
        {"ssm_dt.bias", "mamba.dt_bias"},
        {"ffn_gate_inp", "block_sparse_moe.router.layer"},
        {"ffn_gate_exps", "block_sparse_moe.experts.*.gate_proj"},
        {"ffn_up_exps", "block_sparse_moe.experts.*.up_proj"},
        {"ffn_down_exps", "block_sparse_moe.experts.*.output_linear"},
        {"ffn_gate_shexp", "shared_mlp.gate_proj"},
        {"ffn_up_shexp", "shared_mlp.up_proj"},
        {"ffn_down_shexp", "shared_mlp.output_linear"}};
    return ggufModuleName(name, kTop, kLayer);
}

// A kept as −exp(A_log); A, D and the norm's weight as [1, heads] or [groups, width].
void ggufUndo(const nlohmann::json&, TensorInfo& t, GgufDerived& derived) {
    if (t.name.ends_with(".mamba.A_log"))
        logOfNegated(t, derived);
    else if (t.name.ends_with(".mamba.D") || t.name.ends_with(".mamba.norm.weight"))
        flatten(t);
}

}  // namespace

// transformers' q_proj, k_proj and v_proj under "self_attn."; a Mamba-2 layer's C, B and x are
// mamba.in_proj's rows.
ModelFamily graniteMoeHybrid() {
    ModelFamily f{"granitemoehybrid", {"granitemoehybrid"}, {"model.", ""}, read, bind};
    f.gguf = {.architectures = {"granitehybrid"},
              .config = ggufConfig,
              .tensorName = ggufName,
              .interleavedQk = true,
              .undo = ggufUndo};
    return f;
}

}  // namespace qkv::families
