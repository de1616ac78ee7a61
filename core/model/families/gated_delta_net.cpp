#include "core/model/families/gated_delta_net.h"

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

}  // namespace

void readGatedDeltaNetHybrid(const ConfigReader& r, Architecture& c, const ShapeKeys& keys) {
    readRotaryDecoder(r, c, keys);
    c.qkNorm = QkNorm::PerHead;
    c.outputGate = true;
    readLinearLayers(r, c);
}

void readGatedSharedExperts(const ConfigReader& r, Architecture& c, bool normalizeTopK) {
    c.moe = readExperts(r, "num_experts", r.width("moe_intermediate_size"), normalizeTopK);
    c.moe.sharedWidth = r.width("shared_expert_intermediate_size");
    c.moe.sharedGated = true;
}

NormWeights unitOffsetNorm(TensorBinder& b, const std::string& module, int size) {
    return {b.unitOffsetNormWeight(module, size), {}};
}

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

void bindDeltaNetCore(TensorBinder& b, const Architecture& model, int l, const std::string& p,
                      LayerWeights& layer) {
    const Architecture c = model.atLayer(l);
    const int d = c.dModel, keys = c.kvHeads * c.headDim, values = c.heads * c.valueWidth();
    const int kernel = model.deltaNet.convKernel;
    RecurrentMixerWeights& w = layer.recurrent;
    const VectorView taps = b.flatVector(p + "conv1d.weight", {2 * keys + values, 1, kernel});
    w.queryTaps = taps.slice(0, keys * kernel);
    w.keyTaps = taps.slice(keys * kernel, keys * kernel);
    w.valueTaps = taps.slice(2 * keys * kernel, values * kernel);
    w.aLog = b.vector(p + "A_log", c.heads);
    w.dtBias = b.vector(p + "dt_bias", c.heads);
    w.norm = rmsNorm(b, p + "norm", c.valueWidth());
    layer.output = linearLayer(b, p + "out_proj", values, d, false);
}

void bindGatedSharedExperts(TensorBinder& b, const Architecture& c, const std::string& p,
                            LayerWeights& layer) {
    bindExperts(b, c, p, {"gate_proj", "up_proj", "down_proj"}, layer);
    const int d = c.dModel, shared = c.moe.sharedWidth;
    layer.mlpGate = linearLayer(b, p + "shared_expert.gate_proj", d, shared, false);
    layer.mlpIn = linearLayer(b, p + "shared_expert.up_proj", d, shared, false);
    layer.mlpOut = linearLayer(b, p + "shared_expert.down_proj", shared, d, false);
    layer.sharedExpertGate = linearLayer(b, p + "shared_expert_gate", d, 1, false);
}

ModelWeights bindGatedDeltaNetHybrid(TensorBinder& b, const Architecture& c,
                                     DeltaNetProjectionBinder projections) {
    const int d = c.dModel;
    return bindDecoderStack(
        b, c,
        [&](const std::string& p, int l, LayerWeights& layer) {
            layer.attentionNorm = unitOffsetNorm(b, p + "input_layernorm", d);
            if (c.mixerOf(l) == Mixer::GatedDeltaNet) {
                projections(b, c.atLayer(l), p + "linear_attn.", layer);
                bindDeltaNetCore(b, c, l, p + "linear_attn.", layer);
            } else {
                bindGatedAttention(b, c, p + "self_attn.", layer);
            }
            layer.mlpNorm = unitOffsetNorm(b, p + "post_attention_layernorm", d);
            if (c.kindOf(l).experts)
                bindGatedSharedExperts(b, c, p + "mlp.", layer);
            else
                bindGatedMlp(b, c, p + "mlp.", layer);
        },
        true);
}

}  // namespace qkv::families
