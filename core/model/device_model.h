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
    // The stored weight's memory: slots with one source share x W (SharedProducts).
    const void* source = nullptr;
    float scale = 1.0f;  // LinearWeights::scale
    // Where LinearWeights::inputOrder is set: the model input each stored input takes.
    std::vector<int> inputGather;
};

struct DeviceNorm {
    std::unique_ptr<Tensor> gamma;
    std::unique_ptr<Tensor> beta;  // null for RMSNorm
};

// The backend's storage: weights and sink logits as backend tensors; the router's choice
// bias stays on the host, where routing is decided.
struct DeviceParts {
    using Linear = DeviceLinear;
    using Norm = DeviceNorm;
    using Vector = std::unique_ptr<Tensor>;
    using HostVector = std::vector<float>;
};
using DeviceExpert = ExpertOf<DeviceParts>;
using DeviceLatentAttention = LatentAttentionOf<DeviceParts>;
using DeviceLayer = LayerOf<DeviceParts>;

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
    StreamPartsOf<DeviceParts> streamParts;
};

}  // namespace qkv
