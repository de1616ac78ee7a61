// Qwen3-MoE (keys under "model."): Qwen3's attention (QK-norm per head) with a mixture of
// num_experts SwiGLU experts of moe_intermediate_size (mlp.experts.N: gate_proj, up_proj,
// down_proj) routed by mlp.gate to num_experts_per_tok each, renormalised when norm_topk_prob.
// A layer is a dense MLP of intermediate_size (mlp.gate_proj, ...) when mlp_only_layers lists it
// or when (layer + 1) is not a multiple of decoder_sparse_step.
#include <algorithm>

#include "core/model/families/binding.h"
#include "core/model/gguf_config.h"

namespace qkv::families {
namespace {

void read(const ConfigReader& r, Architecture& c) {
    readRotaryDecoder(r, c);
    c.qkNorm = QkNorm::PerHead;
    if (r.boolOr("use_sliding_window", false))
        r.fail("\"use_sliding_window\": true (windowed Qwen3-MoE layers) is not supported");
    c.moe = readExperts(r, "num_experts", r.width("moe_intermediate_size"),
                        r.boolOr("norm_topk_prob", false));
    const std::vector<int> dense =
        r.has("mlp_only_layers") ? r.integers("mlp_only_layers") : std::vector<int>{};
    const int step = r.positiveIntOr("decoder_sparse_step", 1);
    c.layerKinds.assign(c.layers, LayerKind{});
    for (int l = 0; l < c.layers; ++l)
        c.layerKinds[l].experts =
            std::find(dense.begin(), dense.end(), l) == dense.end() && (l + 1) % step == 0;
}

ModelWeights bind(TensorBinder& b, const Architecture& c) {
    const bool bias = b.has("layers.0.self_attn.q_proj.bias");
    return bindLlamaDecoder(
        b, c, bias, bias, [&](const std::string& p, int l, LayerWeights& layer) {
            if (c.kindOf(l).experts)
                bindExperts(b, c, p + "mlp.", {"gate_proj", "up_proj", "down_proj"}, layer);
            else
                bindGatedMlp(b, c, p + "mlp.", layer);
        });
}

nlohmann::json ggufConfig(const GgufModelReader& r, std::int64_t vocab, bool tied, GgufTensors&) {
    nlohmann::json c = ggufDecoderConfig(r, vocab, tied, "qwen3_moe");
    c["num_experts"] = r.required("expert_count");
    c["num_experts_per_tok"] = r.required("expert_used_count");
    c["moe_intermediate_size"] = r.required("expert_feed_forward_length");
    c["norm_topk_prob"] = true;  // llama.cpp always renormalises Qwen3-MoE's top-k weights
    c["decoder_sparse_step"] = 1;
    c["mlp_only_layers"] = nlohmann::json::array();
    return c;
}

}  // namespace

ModelFamily qwen3Moe() {
    ModelFamily f{"qwen3_moe", {"qwen3_moe"}, {"model.", ""}, read, bind, {"fp8"}};
    f.gguf = {.architectures = {"qwen3moe"}, .config = ggufConfig};
    return f;
}

}  // namespace qkv::families
