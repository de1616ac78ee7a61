// Phi-3 (keys under "model."): the rotary decoder with fused projections stored as row blocks,
// qkv_proj = [Q (heads·d_k) | K (kv·d_k) | V (kv·d_k)] and gate_up_proj = [gate | up], viewed in
// place. Phi-3.5 and Phi-4-mini rotate the first partial_rotary_factor of each head with
// LongRoPE (rope_scaling longrope: short or long factors by the input's length against
// original_max_position_embeddings); sliding_window, when set, applies in every layer.
#include "core/model/families/binding.h"
#include "core/model/gguf_config.h"

namespace qkv::families {
namespace {

void read(const ConfigReader& r, Architecture& c) {
    readRotaryDecoder(r, c);
    c.slidingWindow = r.positiveIntOr("sliding_window", 0);
}

ModelWeights bind(TensorBinder& b, const Architecture& c) {
    const int d = c.dModel;
    const int qWidth = c.heads * c.headDim;
    const int kvWidth = c.kvHeads * c.headDim;
    return bindDecoderStack(b, c, [&](const std::string& p, int, LayerWeights& layer) {
        layer.attentionNorm = rmsNorm(b, p + "input_layernorm", d);
        const MatrixView qkv =
            b.matrix(p + "self_attn.qkv_proj.weight", qWidth + 2 * kvWidth, d).transposed();
        layer.query = {qkv.columns(0, qWidth), {}};
        layer.key = {qkv.columns(qWidth, kvWidth), {}};
        layer.value = {qkv.columns(qWidth + kvWidth, kvWidth), {}};
        layer.output = linearLayer(b, p + "self_attn.o_proj", qWidth, d, false);
        layer.mlpNorm = rmsNorm(b, p + "post_attention_layernorm", d);
        const MatrixView gateUp =
            b.matrix(p + "mlp.gate_up_proj.weight", 2 * c.dFF, d).transposed();
        layer.mlpGate = {gateUp.columns(0, c.dFF), {}};
        layer.mlpIn = {gateUp.columns(c.dFF, c.dFF), {}};
        layer.mlpOut = linearLayer(b, p + "mlp.down_proj", c.dFF, d, false);
    });
}

nlohmann::json ggufConfig(const GgufModelReader& r, std::int64_t vocab, bool tied, GgufTensors&) {
    nlohmann::json c = ggufDecoderConfig(r, vocab, tied, "phi3");
    const std::int64_t headDim =
        r.required("embedding_length") / r.required("attention.head_count");
    if (const auto rotated = r.integer("rope.dimension_count"))
        c["partial_rotary_factor"] = static_cast<double>(*rotated) / headDim;
    if (const auto original = r.integer("rope.scaling.original_context_length"))
        c["original_max_position_embeddings"] = *original;
    if (const auto window = r.integer("attention.sliding_window"); window && *window > 0)
        c["sliding_window"] = *window;
    else
        c["sliding_window"] = nullptr;
    return c;
}

}  // namespace

ModelFamily phi3() {
    ModelFamily f{"phi3", {"phi3"}, {"model.", ""}, read, bind};
    f.gguf = {.architectures = {"phi3"},
              .config = ggufConfig,
              .layerNames = {{"ffn_up", "mlp.gate_up_proj"}}};
    f.transformers = {
        .layout = HfProjectionLayout::FusedRowBlocks, .query = "qkv_proj", .key = "", .value = ""};
    return f;
}

}  // namespace qkv::families
