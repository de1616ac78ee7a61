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
#include "core/model/families/gated_delta_net.h"

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
    const std::optional<ConfigReader> text = r.object("text_config");
    if (!text) r.fail("missing \"text_config\" (the Qwen3.5 text model's description)");
    readText(*text, c);
    c.tiedEmbeddings = r.boolOr("tie_word_embeddings", c.tiedEmbeddings);
    c.notShown = "image and video inputs are not shown: QKV Lab reads Qwen3.5's text model";
}

// The linear layer's projections (c: the layer's own shape).
void bindDeltaNet(TensorBinder& b, const Architecture& c, const std::string& p,
                  LayerWeights& layer) {
    const int d = c.dModel, keys = c.kvHeads * c.headDim, values = c.heads * c.valueWidth();
    const LinearWeights qkv = linearLayer(b, p + "in_proj_qkv", d, 2 * keys + values, false);
    layer.query = {qkv.weight.columns(0, keys), {}};
    layer.key = {qkv.weight.columns(keys, keys), {}};
    layer.value = {qkv.weight.columns(2 * keys, values), {}};
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
    return text;
}

}  // namespace

// Qwen's byte-level BPE; transformers' q_proj, k_proj and v_proj (q_proj with the gate rows).
ModelFamily qwen3_5() {
    ModelFamily f{"qwen3_5_text", {"qwen3_5_text"}, {"model.", ""}, readText, bind};
    f.tokenizer.style = TokenizerHints::Style::Qwen2;
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
    return f;
}

ModelFamily qwen3_5MoeMultimodal() {
    return multimodal(qwen3_5Moe(), "qwen3_5_moe", [](const ConfigReader& r, Architecture& c) {
        readMultimodal(r, c, readMoe);
    });
}

}  // namespace qkv::families
