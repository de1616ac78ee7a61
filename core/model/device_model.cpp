#include "core/model/device_model.h"

namespace qkv {
namespace {

DeviceLinear bindLinear(const LinearWeights& w, Backend& backend) {
    DeviceLinear out;
    if (!w.weight.empty()) out.weight = backend.weight(w.weight);
    if (!w.bias.empty()) out.bias = backend.vector(w.bias);
    out.outputOrder = w.outputOrder;
    return out;
}

DeviceNorm bindNorm(const NormWeights& w, Backend& backend) {
    DeviceNorm out;
    if (!w.gamma.empty()) out.gamma = backend.vector(w.gamma);
    if (!w.beta.empty()) out.beta = backend.vector(w.beta);
    return out;
}

DeviceLayer bindLayer(const LayerWeights& layer, Backend& backend) {
    DeviceLayer d;
    d.attentionNorm = bindNorm(layer.attentionNorm, backend);
    d.attentionOutputNorm = bindNorm(layer.attentionOutputNorm, backend);
    d.query = bindLinear(layer.query, backend);
    d.key = bindLinear(layer.key, backend);
    d.value = bindLinear(layer.value, backend);
    d.output = bindLinear(layer.output, backend);
    d.queryNorm = bindNorm(layer.queryNorm, backend);
    d.keyNorm = bindNorm(layer.keyNorm, backend);
    d.valueNorm = bindNorm(layer.valueNorm, backend);
    if (!layer.attentionSinks.empty()) d.attentionSinks = backend.vector(layer.attentionSinks);
    const LatentAttentionWeights& latent = layer.latent;
    d.latent = {bindLinear(latent.queryDown, backend), bindNorm(latent.queryNorm, backend),
                bindLinear(latent.queryUp, backend),   bindLinear(latent.latent, backend),
                bindLinear(latent.rotaryKey, backend), bindNorm(latent.latentNorm, backend),
                bindLinear(latent.keyValueUp, backend)};
    d.mlpNorm = bindNorm(layer.mlpNorm, backend);
    d.mlpOutputNorm = bindNorm(layer.mlpOutputNorm, backend);
    d.mlpIn = bindLinear(layer.mlpIn, backend);
    d.mlpGate = bindLinear(layer.mlpGate, backend);
    d.mlpOut = bindLinear(layer.mlpOut, backend);
    d.router = bindLinear(layer.router, backend);
    d.routerChoiceBias.assign(layer.routerChoiceBias.data,
                              layer.routerChoiceBias.data + layer.routerChoiceBias.size);
    for (const ExpertWeights& e : layer.experts)
        d.experts.push_back(
            {bindLinear(e.in, backend), bindLinear(e.gate, backend), bindLinear(e.out, backend)});
    d.crossNorm = bindNorm(layer.crossNorm, backend);
    d.crossQuery = bindLinear(layer.crossQuery, backend);
    d.crossKey = bindLinear(layer.crossKey, backend);
    d.crossValue = bindLinear(layer.crossValue, backend);
    d.crossOutput = bindLinear(layer.crossOutput, backend);
    d.outputScale = layer.outputScale;
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
}

}  // namespace qkv
