#include "core/model/gguf_tensor_names.h"

#include <map>
#include <regex>

namespace qkv {

std::string huggingFaceTensorName(const GgufLayout& layout, const std::string& name) {
    if (layout.tensorName) return layout.tensorName(name);
    static const std::map<std::string, std::string> kTop = {
        {"token_embd.weight", "model.embed_tokens.weight"},
        {"output_norm.weight", "model.norm.weight"},
        {"output.weight", "lm_head.weight"}};
    if (auto top = kTop.find(name); top != kTop.end()) return top->second;
    static const std::regex kBlock(R"(blk\.(\d+)\.([a-z_]+)\.(weight|bias))");
    std::smatch m;
    if (!std::regex_match(name, m, kBlock)) return {};
    static const std::map<std::string, std::string> kLayer = {
        {"attn_norm", "input_layernorm"},
        {"attn_q", "self_attn.q_proj"},
        {"attn_k", "self_attn.k_proj"},
        {"attn_v", "self_attn.v_proj"},
        {"attn_qkv", "self_attn.qkv_proj"},
        {"attn_output", "self_attn.o_proj"},
        {"attn_q_norm", "self_attn.q_norm"},
        {"attn_k_norm", "self_attn.k_norm"},
        {"ffn_norm", "post_attention_layernorm"},
        {"post_attention_norm", "post_attention_layernorm"},
        {"post_ffw_norm", "post_feedforward_layernorm"},
        {"ffn_gate", "mlp.gate_proj"},
        {"ffn_up", "mlp.up_proj"},
        {"ffn_down", "mlp.down_proj"},
        {"ffn_gate_inp", "mlp.gate"},  // a mixture of experts' router
        {"ffn_gate_exps", "mlp.experts.*.gate_proj"},
        {"ffn_up_exps", "mlp.experts.*.up_proj"},
        {"ffn_down_exps", "mlp.experts.*.down_proj"},
        // DeepSeek's latent attention and shared experts; k_b and v_b are put back together as
        // kv_b_proj (keyValueUpOf).
        {"attn_q_a", "self_attn.q_a_proj"},
        {"attn_q_a_norm", "self_attn.q_a_layernorm"},
        {"attn_q_b", "self_attn.q_b_proj"},
        {"attn_kv_a_mqa", "self_attn.kv_a_proj_with_mqa"},
        {"attn_kv_a_norm", "self_attn.kv_a_layernorm"},
        {"attn_kv_b", "self_attn.kv_b_proj"},
        {"attn_k_b", "self_attn.k_b_proj"},
        {"attn_v_b", "self_attn.v_b_proj"},
        {"ffn_gate_shexp", "mlp.shared_experts.gate_proj"},
        {"ffn_up_shexp", "mlp.shared_experts.up_proj"},
        {"ffn_down_shexp", "mlp.shared_experts.down_proj"}};
    const std::string blk = "model.layers." + m[1].str() + ".", kind = m[2].str();
    // DeepSeek-V3's router bias and gpt-oss's sinks, which Hugging Face names without a suffix.
    if (kind == "exp_probs_b" && m[3].str() == "bias")
        return blk + "mlp.gate.e_score_correction_bias";
    if (kind == "attn_sinks" && m[3].str() == "weight") return blk + "self_attn.sinks";
    // Experts' biases stay stacked, one row per expert, under gpt-oss's names (down_proj_bias).
    if (kind.ends_with("_exps") && m[3].str() == "bias")
        return blk + "mlp.experts." + kind.substr(4, kind.size() - 9) + "_proj_bias";
    if (kind == "layer_output_scale" && m[3].str() == "weight") return blk + "layer_scalar";
    std::string module;
    if (const auto own = layout.layerNames.find(kind); own != layout.layerNames.end())
        module = own->second;
    else if (const auto common = kLayer.find(kind); common != kLayer.end())
        module = common->second;
    else
        return {};
    return blk + module + "." + m[3].str();
}

}  // namespace qkv
