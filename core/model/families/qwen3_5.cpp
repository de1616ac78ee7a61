// Qwen3.5 (qwen3_5_text, keys under "model."; the Hub's multimodal Qwen3_5ForConditionalGeneration
// keeps its text stack under "model.language_model." and its description in "text_config") and
// Qwen3.5-MoE (qwen3_5_moe_text, qwen3_5_moe likewise): a hybrid of
//   - Gated DeltaNet layers (layer_types "linear_attention"): in_proj_qkv's rows are [q of every
//     key head | k of every key head | v of every value head], conv1d's channels the same; z, b,
//     a, A_log, dt_bias and a plain-w RMSNorm per value head (LayerKind::mixer, RecurrentMixerOf)
//   - gated full attention: q_proj's rows per head [query | gate] (W_Q is the query rows only),
//     QK-norm over each head, partial rotary (its text positions are one stream: mRoPE's three
//     sections rotate alike), the head's output times σ(gate)
// with (1 + w) RMSNorms around each sublayer and a SwiGLU MLP; in Qwen3.5-MoE every layer's MLP
// is a mixture of experts (top-k weights always renormalised) with a gated shared MLP.
// llama.cpp's qwen35 GGUF files open too: what its converter changed is undone in ggufUndo.
#include <map>
#include <numeric>

#include "core/model/families/gated_delta_net.h"
#include "core/model/gguf_config.h"

namespace qkv::families {
namespace {

void readText(const ConfigReader& r, Architecture& c) { readGatedDeltaNetHybrid(r, c); }

void readMoe(const ConfigReader& r, Architecture& c) {
    readGatedDeltaNetHybrid(r, c, {.dFF = "moe_intermediate_size"});
    readGatedSharedExperts(r, c, true);
    for (LayerKind& kind : c.layerKinds) kind.experts = true;
}

// The Hub's multimodal wrapper around `readText`.
void readMultimodal(const ConfigReader& r, Architecture& c,
                    void (*readText)(const ConfigReader&, Architecture&)) {
    readWrappedText(r, c, readText, "Qwen3.5", "image and video inputs");
    c.tiedEmbeddings = r.boolOr("tie_word_embeddings", c.tiedEmbeddings);
}

// The linear layer's projections (c: the layer's own shape).
void bindDeltaNet(TensorBinder& b, const Architecture& c, const std::string& p,
                  LayerWeights& layer) {
    const int d = c.dModel, keys = c.kvHeads * c.headDim, values = c.heads * c.valueWidth();
    const LinearWeights qkv = linearLayer(b, p + "in_proj_qkv", d, 2 * keys + values, false);
    layer.query = {qkv.weight.columns(0, keys), {}};
    layer.key = {qkv.weight.columns(keys, keys), {}};
    layer.value = {qkv.weight.columns(2 * keys, values), {}};
    for (std::size_t i = 2 * keys; i < qkv.outputOrder.size(); ++i)  // a GGUF file's v heads
        layer.value.outputOrder.push_back(qkv.outputOrder[i] - 2 * keys);
    layer.recurrent.z = linearLayer(b, p + "in_proj_z", d, values, false);
    layer.recurrent.b = linearLayer(b, p + "in_proj_b", d, c.heads, false);
    layer.recurrent.a = linearLayer(b, p + "in_proj_a", d, c.heads, false);
}

ModelWeights bind(TensorBinder& b, const Architecture& c) {
    return bindGatedDeltaNetHybrid(b, c, bindDeltaNet);
}

// The Hub's layout (model.language_model.*, lm_head beside it) of a text family.
ModelFamily multimodal(ModelFamily text, const char* modelType,
                       void (*read)(const ConfigReader&, Architecture&)) {
    text.name = modelType;
    text.modelTypes = {modelType};
    text.tensorPrefixes = {"model.language_model.", ""};
    text.read = read;
    text.gguf = {};  // llama.cpp's qwen35 is the text family's
    return text;
}

// llama.cpp's qwen35 files: the linear layers' shape from ssm.* (the key heads as group_count,
// the value heads as time_step_rank, the key head width as state_size), every
// full_attention_interval-th layer full attention, the rotated dimensions as
// rope.dimension_count (its mRoPE sections rotate text positions alike).
nlohmann::json ggufConfig(const GgufModelReader& r, std::int64_t vocab, bool tied, GgufTensors&) {
    nlohmann::json c = ggufDecoderConfig(r, vocab, tied, "qwen3_5_text");
    const std::int64_t valueHeads = r.required("ssm.time_step_rank"),
                       inner = r.required("ssm.inner_size"), headDim = c.value("head_dim", 0);
    if (valueHeads < 1 || inner % valueHeads != 0)
        r.fail("GGUF metadata " + r.arch + ".ssm.inner_size (" + std::to_string(inner) +
               ") is not a whole number of value heads (ssm.time_step_rank " +
               std::to_string(valueHeads) + ")");
    if (headDim < 1) r.fail("GGUF metadata " + r.arch + ".attention.key_length is missing");
    const std::int64_t interval = r.required("full_attention_interval");
    if (interval < 1)
        r.fail("GGUF metadata " + r.arch + ".full_attention_interval must be positive");
    nlohmann::json types = nlohmann::json::array();
    for (std::int64_t l = 0; l < c["num_hidden_layers"].get<std::int64_t>(); ++l)
        types.push_back((l + 1) % interval == 0 ? "full_attention" : "linear_attention");
    c["layer_types"] = types;
    c["linear_num_key_heads"] = r.required("ssm.group_count");
    c["linear_num_value_heads"] = valueHeads;
    c["linear_key_head_dim"] = r.required("ssm.state_size");
    c["linear_value_head_dim"] = inner / valueHeads;
    c["linear_conv_kernel_dim"] = r.required("ssm.conv_kernel");
    c["partial_rotary_factor"] =
        static_cast<double>(r.integer("rope.dimension_count").value_or(headDim)) / headDim;
    return c;
}

std::string ggufName(const std::string& name) {
    static const std::map<std::string, std::string> kTop = {
        {"token_embd", "model.embed_tokens"}, {"output_norm", "model.norm"}, {"output", "lm_head"}};
    static const std::map<std::string, std::string> kLayer = {
        {"attn_norm", "input_layernorm"},
        {"post_attention_norm", "post_attention_layernorm"},
        {"attn_q", "self_attn.q_proj"},
        {"attn_k", "self_attn.k_proj"},
        {"attn_v", "self_attn.v_proj"},
        {"attn_output", "self_attn.o_proj"},
        {"attn_q_norm", "self_attn.q_norm"},
        {"attn_k_norm", "self_attn.k_norm"},
        {"attn_qkv", "linear_attn.in_proj_qkv"},
        {"attn_gate", "linear_attn.in_proj_z"},
        {"ssm_beta", "linear_attn.in_proj_b"},
        {"ssm_alpha", "linear_attn.in_proj_a"},
        {"ssm_conv1d", "linear_attn.conv1d"},
        {"ssm_norm", "linear_attn.norm"},
        {"ssm_out", "linear_attn.out_proj"},
        {"ssm_a", "linear_attn.A_log"},
        {"ssm_dt.bias", "linear_attn.dt_bias"},
        {"ffn_gate", "mlp.gate_proj"},
        {"ffn_up", "mlp.up_proj"},
        {"ffn_down", "mlp.down_proj"}};
    return ggufModuleName(name, kTop, kLayer);
}

// Where llama.cpp keeps each Hugging Face value head: HF head g·r + i (key head g, r value heads
// per key head) at j = i·nk + g, so that value head j reads key head j mod nk. Per channel of
// heads `width` wide, offset by `first`; empty when the two orders agree (r = 1).
std::vector<int> storedValueOrder(const nlohmann::json& config, int width, int first = 0) {
    const int keyHeads = config.at("linear_num_key_heads"),
              valueHeads = config.at("linear_num_value_heads"), perKey = valueHeads / keyHeads;
    if (perKey == 1) return {};
    std::vector<int> order;
    for (int h = 0; h < valueHeads; ++h)
        for (int e = 0; e < width; ++e)
            order.push_back(first + ((h % perKey) * keyHeads + h / perKey) * width + e);
    return order;
}

// `prefix` channels as stored, then the value heads' channels put back in Hugging Face's order.
std::vector<int> withPrefix(int prefix, std::vector<int> order) {
    if (order.empty()) return order;
    std::vector<int> all(prefix);
    std::iota(all.begin(), all.end(), 0);
    all.insert(all.end(), order.begin(), order.end());
    return all;
}

// The rows of a [rows, cols] float tensor in `order` (empty: as they are).
void reorderRows(TensorInfo& t, const std::vector<int>& order, GgufDerived& derived) {
    if (order.empty()) return;
    const std::vector<float> stored = ggufFloats(t);
    const std::size_t cols = stored.size() / order.size();
    std::vector<float> rows(stored.size());
    for (std::size_t i = 0; i < order.size(); ++i)
        std::copy_n(stored.begin() + order[i] * cols, cols, rows.begin() + i * cols);
    replaceWithFloats(t, rows, t.shape, derived);
}

// The converter's changes: norms stored as 1 + w (all but the gated norm), A as -exp(A_log),
// and the linear layers' value heads in llama.cpp's order: rows of the v part of in_proj_qkv, of
// in_proj_z, in_proj_b and in_proj_a, dt_bias, A, the v channels of conv1d and the columns of
// out_proj. The projections gather them back after each product (rowOrder, columnOrder).
void ggufUndo(const nlohmann::json& config, TensorInfo& t, GgufDerived& derived) {
    const auto is = [&](const char* end) { return t.name.ends_with(end); };
    const int keys = config.at("linear_num_key_heads").get<int>() *
                     config.at("linear_key_head_dim").get<int>(),
              valueWidth = config.at("linear_value_head_dim");
    if (is("norm.weight") && !is(".linear_attn.norm.weight")) {
        lessOne(t, derived);
    } else if (is(".linear_attn.A_log")) {
        logOfNegated(t, derived);
        reorderRows(t, storedValueOrder(config, 1), derived);
    } else if (is(".linear_attn.dt_bias")) {
        reorderRows(t, storedValueOrder(config, 1), derived);
    } else if (is(".linear_attn.conv1d.weight")) {
        reorderRows(t, withPrefix(2 * keys, storedValueOrder(config, valueWidth, 2 * keys)),
                    derived);
    } else if (is(".linear_attn.in_proj_qkv.weight")) {
        t.rowOrder = withPrefix(2 * keys, storedValueOrder(config, valueWidth, 2 * keys));
    } else if (is(".linear_attn.in_proj_z.weight")) {
        t.rowOrder = storedValueOrder(config, valueWidth);
    } else if (is(".linear_attn.in_proj_b.weight") || is(".linear_attn.in_proj_a.weight")) {
        t.rowOrder = storedValueOrder(config, 1);
    } else if (is(".linear_attn.out_proj.weight")) {
        t.columnOrder = storedValueOrder(config, valueWidth);
    }
}

}  // namespace

// Qwen's byte-level BPE; transformers' q_proj, k_proj and v_proj (q_proj with the gate rows).
ModelFamily qwen3_5() {
    ModelFamily f{"qwen3_5_text", {"qwen3_5_text"}, {"model.", ""}, readText, bind};
    f.tokenizer.style = TokenizerHints::Style::Qwen2;
    f.gguf = {.architectures = {"qwen35"},
              .config = ggufConfig,
              .tensorName = ggufName,
              .undo = ggufUndo};
    return f;
}

ModelFamily qwen3_5Multimodal() {
    return multimodal(qwen3_5(), "qwen3_5", [](const ConfigReader& r, Architecture& c) {
        readMultimodal(r, c, readText);
    });
}

ModelFamily qwen3_5Moe() {
    ModelFamily f = qwen3_5();
    f.name = "qwen3_5_moe_text";
    f.modelTypes = {"qwen3_5_moe_text"};
    f.read = readMoe;
    f.gguf = {};  // llama.cpp's qwen35moe is not read yet
    return f;
}

ModelFamily qwen3_5MoeMultimodal() {
    return multimodal(qwen3_5Moe(), "qwen3_5_moe", [](const ConfigReader& r, Architecture& c) {
        readMultimodal(r, c, readMoe);
    });
}

}  // namespace qkv::families
