#pragma once
// One function per architecture mapping Hugging Face tensor names onto ModelWeights.
#include "core/io/model_config.h"
#include "core/model/model_weights.h"
#include "core/model/tensor_binder.h"

namespace qkv {

ModelWeights bindGpt2(TensorBinder& binder, const ModelConfig& config);
ModelWeights bindBert(TensorBinder& binder, const ModelConfig& config);
ModelWeights bindLlama(TensorBinder& binder, const ModelConfig& config);

}  // namespace qkv
