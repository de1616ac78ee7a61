// Mixtral (keys under "model."): Mistral's decoder whose MLP is a mixture of num_local_experts
// SwiGLU experts (block_sparse_moe.experts.N: w1 the gate, w3 up, w2 down). The router
// (block_sparse_moe.gate) sends each token to its num_experts_per_tok most probable experts,
// whose probabilities are always renormalised to sum to one. Every layer has experts.
#include "core/model/families/binding.h"
#include "core/model/gguf_config.h"

namespace qkv::families {
namespace {

void read(const ConfigReader& r, Architecture& c) {
    readRotaryDecoder(r, c);
    c.slidingWindow = r.positiveIntOr("sliding_window", 0);
    c.moe = readExperts(r, "num_local_experts", c.dFF, true);
    c.layerKinds.assign(c.layers, LayerKind{c.slidingWindow > 0, true, true});
}

ModelWeights bind(TensorBinder& b, const Architecture& c) {
    return bindLlamaDecoder(
        b, c, false, false, [&](const std::string& p, int, LayerWeights& layer) {
            bindExperts(b, c, p + "block_sparse_moe.", {"w1", "w3", "w2"}, layer);
        });
}

}  // namespace

// llama.cpp renormalises the top-k weights, as transformers' Mixtral does.
nlohmann::json mixtralGgufConfig(const GgufModelReader& r, std::int64_t vocab, bool tied) {
    nlohmann::json c = ggufDecoderConfig(r, vocab, tied, "mixtral");
    c["num_local_experts"] = r.required("expert_count");
    c["num_experts_per_tok"] = r.required("expert_used_count");
    c["sliding_window"] = nullptr;
    return c;
}

// Its GGUF files are Llama's (read by the llama family), with the mixture's module names.
ModelFamily mixtral() {
    ModelFamily f{"mixtral", {"mixtral"}, {"model.", ""}, read, bind};
    f.gguf = {.layerNames = {{"ffn_gate_inp", "block_sparse_moe.gate"},
                             {"ffn_gate_exps", "block_sparse_moe.experts.*.w1"},
                             {"ffn_up_exps", "block_sparse_moe.experts.*.w3"},
                             {"ffn_down_exps", "block_sparse_moe.experts.*.w2"}},
              .interleavedQk = true};
    return f;
}

}  // namespace qkv::families
