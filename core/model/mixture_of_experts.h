#pragma once
// A mixture-of-experts MLP on a backend (Mixtral, Qwen3-MoE, gpt-oss): the router scores every
// expert for each token, the token's rows go to its chosen experts (each a gated MLP of its own),
// and their outputs, weighted by the routing, are summed as Hugging Face sums them: from zero,
// expert by expert in index order.
#include <memory>
#include <vector>

#include "core/backend/backend.h"
#include "core/model/architecture.h"
#include "core/model/device_model.h"
#include "core/model/routing.h"

namespace qkv {

// y = x W (+ b) for a bound linear layer, in a new tensor, its columns in the order the model
// uses them (DeviceLinear::outputOrder).
std::unique_ptr<Tensor> applyLinear(Backend& backend, const DeviceLinear& l, const Tensor& x);

// An MLP: out(act(gate x) · in x) for a gated activation, out(ClampedSwiGlu(in x)) where `in`
// interleaves gate and up (gpt-oss; with `gate` bound, ClampedSwiGlu(gate x, in x)), else
// out(act(in x)).
std::unique_ptr<Tensor> feedForward(Backend& backend, Activation activation, const DeviceLinear& in,
                                    const DeviceLinear& gate, const DeviceLinear& out,
                                    const Tensor& x);

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
