#pragma once
// A mixture-of-experts MLP on a backend (Mixtral, Qwen3-MoE, gpt-oss): the router scores every
// expert for each token, the token's rows go to its chosen experts (each a gated MLP of its own),
// and their outputs, weighted by the routing, are summed as Hugging Face sums them: from zero,
// expert by expert in index order.
#include <memory>
#include <vector>

#include "core/backend/backend.h"
#include "core/model/architecture.h"
#include "core/model/dense_layers.h"
#include "core/model/device_model.h"
#include "core/model/routing.h"

namespace qkv {

// Each token's choice of experts by the family's rule (Architecture::moe), from its router
// logits (`tokens` rows of moe.experts) and the choice bias (DeepSeek-V3's; empty: none).
std::vector<TokenRouting> routeLogits(const MixtureOfExperts& moe, const float* logits, int tokens,
                                      const std::vector<float>& choiceBias);

// Each token's choice of experts in the layer, for x (one token per row). Waits for the router's
// logits (the routing is decided on the host).
std::vector<TokenRouting> routeTokens(Backend& backend, const Architecture& c,
                                      const DeviceLayer& layer, const Tensor& x);

// The layer's mixture of experts applied to x (one token per row); `routing` receives each
// token's choice (routeTokens).
std::unique_ptr<Tensor> mixtureOfExperts(Backend& backend, const Architecture& c,
                                         const DeviceLayer& layer, const Tensor& x,
                                         std::vector<TokenRouting>& routing);

}  // namespace qkv
