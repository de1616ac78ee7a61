#include "core/model/families/mamba2.h"

namespace qkv::families {

void readTimeStepLimit(const ConfigReader& r, Architecture& c) {
    if (!r.has("time_step_limit")) return;
    const std::vector<double> limit = r.extendedNumbers("time_step_limit");
    if (limit.size() != 2 || !(limit[0] <= limit[1]))
        r.fail("\"time_step_limit\" must be [low, high]");
    c.mamba2.dtMin = static_cast<float>(limit[0]);
    c.mamba2.dtMax = static_cast<float>(limit[1]);
}

LayerKind readMamba2(const ConfigReader& r, const Mamba2Keys& keys, Architecture& c) {
    LayerKind k;
    k.mixer = Mixer::Mamba2;
    k.rotary = false;
    k.heads = r.positiveInt(keys.heads);
    k.valueDim = r.width(keys.headDim);
    k.kvHeads = r.positiveInt(keys.groups);
    k.headDim = r.width(keys.state);
    if (k.heads % k.kvHeads != 0)
        r.fail("\"" + std::string(keys.groups) + "\" (" + std::to_string(k.kvHeads) +
               ") does not divide the " + std::to_string(k.heads) + " Mamba heads (\"" +
               keys.heads + "\")");
    c.mamba2.convKernel = r.positiveInt(keys.kernel, 64);
    return k;
}

void bindMamba2(TensorBinder& b, const Architecture& c, const std::string& p, LayerWeights& layer) {
    const int d = c.dModel, inner = c.heads * c.valueWidth(), states = c.kvHeads * c.headDim;
    const int kernel = c.mamba2.convKernel, channels = inner + 2 * states;
    const LinearWeights in = linearLayer(b, p + "in_proj", d, 2 * inner + 2 * states + c.heads,
                                         b.has(p + "in_proj.bias"));
    RecurrentMixerWeights& w = layer.recurrent;
    w.z = columnsOf(in, 0, inner);
    layer.value = columnsOf(in, inner, inner);
    layer.key = columnsOf(in, 2 * inner, states);
    layer.query = columnsOf(in, 2 * inner + states, states);
    w.a = columnsOf(in, 2 * inner + 2 * states, c.heads);
    const VectorView taps = b.flatVector(p + "conv1d.weight", {channels, 1, kernel});
    w.valueTaps = taps.slice(0, inner * kernel);
    w.keyTaps = taps.slice(inner * kernel, states * kernel);
    w.queryTaps = taps.slice((inner + states) * kernel, states * kernel);
    if (b.has(p + "conv1d.bias")) {
        const VectorView bias = b.vector(p + "conv1d.bias", channels);
        w.valueConvBias = bias.slice(0, inner);
        w.keyConvBias = bias.slice(inner, states);
        w.queryConvBias = bias.slice(inner + states, states);
    }
    w.aLog = b.vector(p + "A_log", c.heads);
    w.skip = b.vector(p + "D", c.heads);
    w.dtBias = b.vector(p + "dt_bias", c.heads);
    if (c.mamba2.gatedNorm) w.norm = rmsNorm(b, p + "norm", inner);
    layer.output = linearLayer(b, p + "out_proj", inner, d, b.has(p + "out_proj.bias"));
}

}  // namespace qkv::families
