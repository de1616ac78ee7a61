#pragma once
// A model's weights bound to one backend: the CPU wraps the mapped tensors, a GPU backend holds
// device copies. Built once per (model, backend) and reused by every forward pass.
#include <memory>
#include <vector>

#include "core/backend/backend.h"
#include "core/model/model_weights.h"

namespace qkv {

struct DeviceLinear {
    std::unique_ptr<Tensor> weight;
    std::unique_ptr<Tensor> bias;  // null when the layer has none
    std::vector<int> outputOrder;  // LinearWeights::outputOrder
};

struct DeviceNorm {
    std::unique_ptr<Tensor> gamma;
    std::unique_ptr<Tensor> beta;  // null for RMSNorm
};

struct DeviceExpert {
    DeviceLinear in, gate, out;
};

struct DeviceLatentAttention {
    DeviceLinear queryDown;
    DeviceNorm queryNorm;
    DeviceLinear queryUp, latent, rotaryKey;
    DeviceNorm latentNorm;
    DeviceLinear keyValueUp;
};

struct DeviceLayer {
    DeviceNorm attentionNorm, attentionOutputNorm;
    DeviceLinear query, key, value, output;
    DeviceNorm queryNorm, keyNorm, valueNorm;
    std::unique_ptr<Tensor> attentionSinks;  // null where the family has none
    DeviceLatentAttention latent;            // empty unless latent attention
    DeviceNorm mlpNorm, mlpOutputNorm;
    DeviceLinear mlpIn, mlpGate, mlpOut;
    DeviceLinear router;  // a mixture-of-experts layer's, with its experts; else empty
    std::vector<float> routerChoiceBias;  // on the host, where routing is decided
    std::vector<DeviceExpert> experts;
    DeviceNorm crossNorm;
    DeviceLinear crossQuery, crossKey, crossValue, crossOutput;
    float outputScale = 1.0f;
};

struct DeviceModel {
    DeviceModel(const ModelWeights& weights, Backend& backend);

    DeviceLinear embeddingProjection;
    DeviceNorm embeddingNorm;
    std::vector<DeviceLayer> layers;
    DeviceNorm finalNorm;
    DeviceLinear headTransform;
    DeviceNorm headTransformNorm;
    DeviceLinear outputProjection;
    DeviceLinear lmHead;
    std::vector<DeviceLayer> decoderLayers;
    DeviceNorm decoderEmbeddingNorm;
    DeviceNorm decoderFinalNorm;
};

}  // namespace qkv
