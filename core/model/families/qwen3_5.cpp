// Qwen3.5 (qwen3_5_text, keys under "model."; the Hub's multimodal Qwen3_5ForConditionalGeneration
// keeps its text stack under "model.language_model." and its description in "text_config"): a
// hybrid of
//   - Gated DeltaNet layers (layer_types "linear_attention"): in_proj_qkv's rows are [q of every
//     key head | k of every key head | v of every value head], conv1d's channels the same; z, b,
//     a, A_log, dt_bias and a plain-w RMSNorm per value head (LayerKind::mixer, DeltaNetOf)
//   - gated full attention: q_proj's rows per head [query | gate] (W_Q is the query rows only),
//     QK-norm over each head, partial rotary (its text positions are one stream: mRoPE's three
//     sections rotate alike), the head's output times σ(gate)
// with (1 + w) RMSNorms around each sublayer and a SwiGLU MLP.
#include "core/model/families/binding.h"

namespace qkv::families {
namespace {

// Gated DeltaNet's shape, for the layers layer_types (or full_attention_interval) make linear.
void readLinearLayers(const ConfigReader& r, Architecture& c) {
    LayerKind linear;
    linear.mixer = Mixer::GatedDeltaNet;
    linear.rotary = false;
    linear.kvHeads = r.positiveInt("linear_num_key_heads");
    linear.heads = r.positiveInt("linear_num_value_heads");
    linear.headDim = r.width("linear_key_head_dim");
    linear.valueDim = r.width("linear_value_head_dim");
    if (linear.heads % linear.kvHeads != 0)
        r.fail("\"linear_num_value_heads\" (" + std::to_string(linear.heads) +
               ") is not a multiple of \"linear_num_key_heads\" (" +
               std::to_string(linear.kvHeads) + ")");
    c.deltaNet.convKernel = r.positiveInt("linear_conv_kernel_dim", 64);
    std::vector<std::string> types;
    if (r.has("layer_types")) {
        types = r.strings("layer_types");
    } else {  // transformers' default: every interval-th layer is full attention
        const int interval = r.positiveIntOr("full_attention_interval", 4);
        for (int l = 0; l < c.layers; ++l)
            types.push_back((l + 1) % interval == 0 ? "full_attention" : "linear_attention");
    }
    if (static_cast<int>(types.size()) != c.layers)
        r.fail("\"layer_types\" lists " + std::to_string(types.size()) + " layers; the model has " +
               std::to_string(c.layers));
    c.layerKinds.assign(c.layers, LayerKind{});
    for (int l = 0; l < c.layers; ++l) {
        if (types[l] == "linear_attention")
            c.layerKinds[l] = linear;
        else if (types[l] != "full_attention")
            r.fail("\"layer_types\" entry \"" + types[l] +
                   "\" is not supported (only linear_attention and full_attention)");
    }
}

void readText(const ConfigReader& r, Architecture& c) {
    readRotaryDecoder(r, c);
    c.qkNorm = QkNorm::PerHead;
    c.outputGate = true;
    readLinearLayers(r, c);
}

void readMultimodal(const ConfigReader& r, Architecture& c) {
    const std::optional<ConfigReader> text = r.object("text_config");
    if (!text) r.fail("missing \"text_config\" (the Qwen3.5 text model's description)");
    readText(*text, c);
    c.tiedEmbeddings = r.boolOr("tie_word_embeddings", c.tiedEmbeddings);
    c.notShown = "image and video inputs are not shown: QKV Lab reads Qwen3.5's text model";
}

NormWeights unitOffsetNorm(TensorBinder& b, const std::string& module, int size) {
    return {b.unitOffsetNormWeight(module, size), {}};
}

// Gated attention: q_proj's rows interleave each head's query and gate.
void bindGatedAttention(TensorBinder& b, const Architecture& c, const std::string& p,
                        LayerWeights& layer) {
    const int d = c.dModel, width = c.headDim, kvWidth = c.kvHeads * c.headDim;
    const LinearWeights queryAndGate = linearLayer(b, p + "q_proj", d, 2 * c.heads * width, false);
    layer.query = layer.attentionGate = queryAndGate;
    layer.query.outputOrder.clear();
    layer.attentionGate.outputOrder.clear();
    for (int h = 0; h < c.heads; ++h)
        for (int i = 0; i < width; ++i) {
            layer.query.outputOrder.push_back(2 * h * width + i);
            layer.attentionGate.outputOrder.push_back(2 * h * width + width + i);
        }
    layer.key = linearLayer(b, p + "k_proj", d, kvWidth, false);
    layer.value = linearLayer(b, p + "v_proj", d, kvWidth, false);
    layer.output = linearLayer(b, p + "o_proj", c.heads * width, d, false);
    bindQkNorm(b, c, p, layer, true);
}

void bindDeltaNet(TensorBinder& b, const Architecture& model, int l, const std::string& p,
                  LayerWeights& layer) {
    const Architecture c = model.atLayer(l);
    const int d = c.dModel, keys = c.kvHeads * c.headDim, values = c.heads * c.valueWidth();
    const int kernel = model.deltaNet.convKernel;
    const LinearWeights qkv = linearLayer(b, p + "in_proj_qkv", d, 2 * keys + values, false);
    layer.query = {qkv.weight.columns(0, keys), {}};
    layer.key = {qkv.weight.columns(keys, keys), {}};
    layer.value = {qkv.weight.columns(2 * keys, values), {}};
    DeltaNetWeights& w = layer.deltaNet;
    const VectorView taps = b.flatVector(p + "conv1d.weight", {2 * keys + values, 1, kernel});
    w.queryTaps = taps.slice(0, keys * kernel);
    w.keyTaps = taps.slice(keys * kernel, keys * kernel);
    w.valueTaps = taps.slice(2 * keys * kernel, values * kernel);
    w.z = linearLayer(b, p + "in_proj_z", d, values, false);
    w.b = linearLayer(b, p + "in_proj_b", d, c.heads, false);
    w.a = linearLayer(b, p + "in_proj_a", d, c.heads, false);
    w.aLog = b.vector(p + "A_log", c.heads);
    w.dtBias = b.vector(p + "dt_bias", c.heads);
    w.norm = rmsNorm(b, p + "norm", c.valueWidth());
    layer.output = linearLayer(b, p + "out_proj", values, d, false);
}

ModelWeights bind(TensorBinder& b, const Architecture& c) {
    const int d = c.dModel;
    return bindDecoderStack(
        b, c,
        [&](const std::string& p, int l, LayerWeights& layer) {
            layer.attentionNorm = unitOffsetNorm(b, p + "input_layernorm", d);
            if (c.mixerOf(l) == Mixer::GatedDeltaNet)
                bindDeltaNet(b, c, l, p + "linear_attn.", layer);
            else
                bindGatedAttention(b, c, p + "self_attn.", layer);
            layer.mlpNorm = unitOffsetNorm(b, p + "post_attention_layernorm", d);
            bindGatedMlp(b, c, p + "mlp.", layer);
        },
        true);
}

}  // namespace

// Qwen's byte-level BPE; transformers' q_proj, k_proj and v_proj (q_proj with the gate rows).
ModelFamily qwen3_5() {
    ModelFamily f{"qwen3_5_text", {"qwen3_5_text"}, {"model.", ""}, readText, bind};
    f.tokenizer.style = TokenizerHints::Style::Qwen2;
    return f;
}

// The Hub's layout (model.language_model.*, lm_head beside it).
ModelFamily qwen3_5Multimodal() {
    ModelFamily f = qwen3_5();
    f.name = "qwen3_5";
    f.modelTypes = {"qwen3_5"};
    f.tensorPrefixes = {"model.language_model.", ""};
    f.read = readMultimodal;
    return f;
}

}  // namespace qkv::families
