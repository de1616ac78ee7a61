#pragma once
// A Gated DeltaNet layer (Qwen3.5's and Qwen3-Next's linear_attention layers) on a backend:
//   q, k, v    each slot's projection (the W configuration picks which of W_Q, W_K, W_V fills it)
//              through the short causal convolution of that projection's channels, then SiLU;
//              q and k unit vectors per key head
//   core       Backend::gatedDeltaRule with β = σ(x W_b), the decay from x W_a, A_log, dt_bias
//   output     out_proj(RMSNorm(core per value head) · silu(x W_z))
// The trace gets each value head's implicit attention as its probabilities (no scores: there is
// no softmax), and the slots' q, k and v in the layout attention's heads use (value head h reads
// key head h / (value heads / key heads)).
#include <memory>

#include "core/model/architecture.h"
#include "core/model/attention_trace.h"
#include "core/model/convolved_projections.h"
#include "core/model/device_model.h"

namespace qkv {

// The layer's mixer output (x's rows, d_model wide); traced gets what `request` captures. `c`
// describes the model at this layer (Architecture::atLayer).
std::unique_ptr<Tensor> runDeltaNet(Backend& backend, const Architecture& c,
                                    const DeviceLayer& layer, const MixerRequest& request,
                                    const Tensor& x, LayerTrace& traced);

}  // namespace qkv
