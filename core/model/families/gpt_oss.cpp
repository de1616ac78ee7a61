// gpt-oss (keys under "model."): a rotary decoder whose layers alternate sliding-window and full
// attention (layer_types; without it, sliding first), with biases on q, k, v and o and a learned
// attention sink per head (self_attn.sinks). Every MLP is a mixture of num_local_experts experts:
// the router (mlp.router, with a bias) takes each token's num_experts_per_tok largest logits and
// weighs them by a softmax over those; an expert's gate and up projections are one interleaved
// product (mlp.experts.gate_up_proj [experts, d_model, 2 width], gate in the even columns) with a
// bias, followed by the clamped SwiGLU and down_proj [experts, width, d_model] with a bias.
// The Hub's files keep the experts in MXFP4 (quant_method "mxfp4": gate_up_proj_blocks/_scales
// and down_proj_blocks/_scales), viewed as they are mapped and decoded block by block where a
// product reads them (TensorBinder::stackedMatrix). A GGUF file keeps gate, up and down apart.
#include "core/model/families/binding.h"
#include "core/model/gguf_config.h"

namespace qkv::families {
namespace {

void read(const ConfigReader& r, Architecture& c) {
    readRotaryDecoder(r, c);
    c.activation = Activation::ClampedSwiGlu;
    c.attentionSinks = true;
    c.slidingWindow = r.positiveInt("sliding_window");
    c.moe = readExperts(r, "num_local_experts", c.dFF, true);
    c.moe.router = Router::TopKSoftmax;
    c.layerKinds.clear();  // sliding first, then alternating, unless layer_types says otherwise
    for (int l = 0; l < c.layers; ++l) c.layerKinds.push_back({l % 2 == 0, true, true});
    readLayerTypes(r, c);
}

// Expert e of the stacked tensors under `p` ("layers.N.mlp.experts.").
ExpertWeights expert(TensorBinder& b, const Architecture& c, const std::string& p, int e) {
    const int d = c.dModel, width = c.moe.width, count = c.moe.experts;
    ExpertWeights w;
    w.in = {b.stackedMatrix(p + "gate_up_proj", count, d, 2 * width, e),
            b.stackedVector(p + "gate_up_proj_bias", count, 2 * width, e)};
    w.out = {b.stackedMatrix(p + "down_proj", count, width, d, e),
             b.stackedVector(p + "down_proj_bias", count, d, e)};
    return w;
}

// Expert e as a GGUF file keeps it (core/model/gguf_checkpoint.cpp): the gate, up and down
// projections apart, [out, in] each under "N.", their biases stacked per expert.
ExpertWeights expertApart(TensorBinder& b, const Architecture& c, const std::string& p, int e) {
    const int d = c.dModel, width = c.moe.width, count = c.moe.experts;
    const std::string expert = p + std::to_string(e) + ".";
    auto projection = [&](const std::string& name, int in, int out) -> LinearWeights {
        return {b.matrix(expert + name + ".weight", out, in).transposed(),
                b.stackedVector(p + name + "_bias", count, out, e)};
    };
    return {projection("up_proj", d, width), projection("gate_proj", d, width),
            projection("down_proj", width, d)};
}

ModelWeights bind(TensorBinder& b, const Architecture& c) {
    return bindLlamaDecoder(b, c, true, true, [&](const std::string& p, int, LayerWeights& layer) {
        layer.router = linearLayer(b, p + "mlp.router", c.dModel, c.moe.experts, true);
        const bool apart = b.has(p + "mlp.experts.0.up_proj.weight");
        for (int e = 0; e < c.moe.experts; ++e)
            layer.experts.push_back(apart ? expertApart(b, c, p + "mlp.experts.", e)
                                          : expert(b, c, p + "mlp.experts.", e));
        layer.attentionSinks = b.vector(p + "self_attn.sinks", c.heads);
    });
}

nlohmann::json ggufConfig(const GgufModelReader& r, std::int64_t vocab, bool tied, GgufTensors&) {
    nlohmann::json c = ggufDecoderConfig(r, vocab, tied, "gpt_oss");
    c["num_local_experts"] = r.required("expert_count");
    c["num_experts_per_tok"] = r.required("expert_used_count");
    c["intermediate_size"] = r.required("expert_feed_forward_length");
    c["sliding_window"] = r.required("attention.sliding_window");
    // gpt-oss's config turns YaRN's ramp without rounding its ends (truncate false), which the
    // file does not keep.
    if (c.contains("rope_scaling") && c["rope_scaling"]["rope_type"] == "yarn")
        c["rope_scaling"]["truncate"] = false;
    return c;
}

}  // namespace

ModelFamily gptOss() {
    ModelFamily f{"gpt_oss", {"gpt_oss"}, {"model.", ""}, read, bind, {"mxfp4"}};
    f.gguf = {.architectures = {"gpt-oss"},
              .config = ggufConfig,
              .layerNames = {{"ffn_gate_inp", "mlp.router"}}};
    return f;
}

}  // namespace qkv::families
