#include "core/model/gguf_tensor_names.h"

#include <map>
#include <regex>

namespace qkv {
namespace {

// ModernBERT ("modern-bert") keeps its own module names. The converter writes a checkpoint's
// head.dense and head.norm (the masked-LM or classifier head's transform) as cls and cls.norm, a
// classifier's output as cls.output, and no masked-LM decoder bias: they are named as Hugging
// Face names them, and the family leaves them unread (the model opens without logits).
std::string modernBertName(const std::string& name) {
    static const std::map<std::string, std::string> kTop = {
        {"token_embd", "model.embeddings.tok_embeddings"},
        {"token_embd_norm", "model.embeddings.norm"},
        {"output_norm", "model.final_norm"},
        {"cls", "head.dense"},
        {"cls.norm", "head.norm"},
        {"cls.output", "classifier"}};
    static const std::map<std::string, std::string> kLayer = {
        {"attn_norm", "attn_norm"}, {"attn_qkv", "attn.Wqkv"}, {"attn_output", "attn.Wo"},
        {"ffn_norm", "mlp_norm"},   {"ffn_up", "mlp.Wi"},      {"ffn_down", "mlp.Wo"}};
    static const std::regex kTensor(R"((?:blk\.(\d+)\.)?([a-z_.]+)\.(weight|bias))");
    std::smatch m;
    if (!std::regex_match(name, m, kTensor)) return {};
    const auto& modules = m[1].matched ? kLayer : kTop;
    const auto module = modules.find(m[2].str());
    if (module == modules.end()) return {};
    const std::string layer = m[1].matched ? "model.layers." + m[1].str() + "." : "";
    return layer + module->second + "." + m[3].str();
}

}  // namespace

std::string huggingFaceTensorName(const std::string& arch, const std::string& modelType,
                                  const std::string& name) {
    if (arch == "modern-bert") return modernBertName(name);
    static const std::map<std::string, std::string> kTop = {
        {"token_embd.weight", "model.embed_tokens.weight"},
        {"output_norm.weight", "model.norm.weight"},
        {"output.weight", "lm_head.weight"}};
    if (auto top = kTop.find(name); top != kTop.end()) return top->second;
    static const std::regex kBlock(R"(blk\.(\d+)\.([a-z_]+)\.(weight|bias))");
    std::smatch m;
    if (!std::regex_match(name, m, kBlock)) return {};
    const bool gemma = arch == "gemma2" || arch == "gemma3" || arch == "gemma4",
               phi = arch == "phi3";
    const std::map<std::string, std::string> layer = {
        {"attn_norm", "input_layernorm"},
        {"attn_q", "self_attn.q_proj"},
        {"attn_k", "self_attn.k_proj"},
        {"attn_v", "self_attn.v_proj"},
        {"attn_qkv", "self_attn.qkv_proj"},
        {"attn_output", "self_attn.o_proj"},
        {"attn_q_norm", "self_attn.q_norm"},
        {"attn_k_norm", "self_attn.k_norm"},
        {"ffn_norm", gemma ? "pre_feedforward_layernorm" : "post_attention_layernorm"},
        {"post_attention_norm", "post_attention_layernorm"},
        {"post_ffw_norm", "post_feedforward_layernorm"},
        {"ffn_gate", "mlp.gate_proj"},
        {"ffn_up", phi ? "mlp.gate_up_proj" : "mlp.up_proj"},
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
    if (arch == "gpt-oss" && kind == "ffn_gate_inp") return blk + "mlp.router." + m[3].str();
    if (kind == "layer_output_scale" && m[3].str() == "weight") return blk + "layer_scalar";
    // Mixtral's mixture: block_sparse_moe, its experts' w1 (gate), w3 (up) and w2 (down).
    static const std::map<std::string, std::string> kMixtral = {
        {"ffn_gate_inp", "block_sparse_moe.gate"},
        {"ffn_gate_exps", "block_sparse_moe.experts.*.w1"},
        {"ffn_up_exps", "block_sparse_moe.experts.*.w3"},
        {"ffn_down_exps", "block_sparse_moe.experts.*.w2"}};
    if (modelType == "mixtral")
        if (const auto expert = kMixtral.find(m[2].str()); expert != kMixtral.end())
            return "model.layers." + m[1].str() + "." + expert->second + "." + m[3].str();
    const auto module = layer.find(m[2].str());
    if (module == layer.end()) return {};
    return "model.layers." + m[1].str() + "." + module->second + "." + m[3].str();
}

}  // namespace qkv
