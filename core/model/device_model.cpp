#include "core/model/device_model.h"

namespace qkv {
namespace {

// One overload per kind of part: forEachPart pairs each of the checkpoint's parts with the
// device layer's.
struct Binder {
    Backend& backend;

    void operator()(const LinearWeights& w, DeviceLinear& out) const {
        if (!w.weight.empty()) out.weight = backend.weight(w.weight);
        if (!w.bias.empty()) out.bias = backend.vector(w.bias);
        out.outputOrder = w.outputOrder;
        out.source = w.weight.data;
        out.scale = w.scale;
        out.inputGather.assign(w.inputOrder.size(), 0);
        for (std::size_t i = 0; i < w.inputOrder.size(); ++i)
            out.inputGather.at(w.inputOrder[i]) = static_cast<int>(i);
    }
    void operator()(const NormWeights& w, DeviceNorm& out) const {
        if (!w.gamma.empty()) out.gamma = backend.vector(w.gamma);
        if (!w.beta.empty()) out.beta = backend.vector(w.beta);
    }
    void operator()(const VectorView& v, std::unique_ptr<Tensor>& out) const {
        if (!v.empty()) out = backend.vector(v);
    }
    void operator()(const VectorView& v, std::vector<float>& out) const {
        out.assign(v.data, v.data + v.size);
    }
};

DeviceLinear bindLinear(const LinearWeights& w, Backend& backend) {
    DeviceLinear out;
    Binder{backend}(w, out);
    return out;
}

DeviceNorm bindNorm(const NormWeights& w, Backend& backend) {
    DeviceNorm out;
    Binder{backend}(w, out);
    return out;
}

DeviceLayer bindLayer(const LayerWeights& layer, Backend& backend) {
    DeviceLayer d;
    forEachPart(layer, d, Binder{backend});
    return d;
}

}  // namespace

DeviceModel::DeviceModel(const ModelWeights& weights, Backend& backend) {
    embeddingProjection = bindLinear(weights.embeddingProjection, backend);
    embeddingNorm = bindNorm(weights.embeddingNorm, backend);
    for (const LayerWeights& layer : weights.layers) layers.push_back(bindLayer(layer, backend));
    finalNorm = bindNorm(weights.finalNorm, backend);
    headTransform = bindLinear(weights.headTransform, backend);
    headTransformNorm = bindNorm(weights.headTransformNorm, backend);
    outputProjection = bindLinear(weights.outputProjection, backend);
    lmHead = bindLinear(weights.lmHead, backend);
    for (const LayerWeights& layer : weights.decoderLayers)
        decoderLayers.push_back(bindLayer(layer, backend));
    decoderEmbeddingNorm = bindNorm(weights.decoderEmbeddingNorm, backend);
    decoderFinalNorm = bindNorm(weights.decoderFinalNorm, backend);
    const StreamPartsOf<HostParts>& streams = weights.streamParts;
    for (const LinearWeights& up : streams.streamUp)
        streamParts.streamUp.push_back(bindLinear(up, backend));
    for (const LinearWeights& down : streams.streamDown)
        streamParts.streamDown.push_back(bindLinear(down, backend));
    streamParts.perLayerProjection = bindLinear(streams.perLayerProjection, backend);
    streamParts.perLayerNorm = bindNorm(streams.perLayerNorm, backend);
}

}  // namespace qkv
