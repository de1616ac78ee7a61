#pragma once
// The token mixers without a softmax, one .cpp each. Each returns the layer's mixer output (x's
// rows, d_model wide) and fills `traced` with what `request` captures; `c` describes the model
// at this layer (Architecture::atLayer). The W configuration picks which projection fills the
// query, key and value slot.
#include <memory>

#include "core/model/architecture.h"
#include "core/model/attention_trace.h"
#include "core/model/convolved_projections.h"
#include "core/model/device_model.h"

namespace qkv {

// Gated DeltaNet (Qwen3.5's and Qwen3-Next's linear_attention layers):
//   q, k, v    each slot's projection through the short causal convolution of that
//              projection's channels, then SiLU; q and k unit vectors per key head
//   core       Backend::gatedDeltaRule with β = σ(x W_b), the decay from x W_a, A_log, dt_bias
//   output     out_proj(RMSNorm(core per value head) · silu(x W_z))
// The trace gets each value head's implicit attention as its probabilities (no scores: there is
// no softmax), and the slots' q, k and v in the layout attention's heads use (value head h reads
// key head h / (value heads / key heads)).
std::unique_ptr<Tensor> runDeltaNet(Backend& backend, const Architecture& c,
                                    const DeviceLayer& layer, const MixerRequest& request,
                                    const Tensor& x, LayerTrace& traced);

// Mamba-2 (Nemotron-H's, Granite 4's and Falcon-H1's state-space layers):
//   C, B, x    the query, key and value slots, every projection a column block of in_proj,
//              through its own short causal convolution (with a bias) and SiLU
//   core       Backend::stateSpace with dt from in_proj's dt columns, A_log, dt_bias and D
//   output     out_proj of y gated by silu(z) and RMS-normed per group (Architecture::mamba2)
// The trace gets each head's implicit attention M as its probabilities, its skip D, and the
// slots' C, B and x (head h reads B/C group h / (heads / groups)).
std::unique_ptr<Tensor> runMamba2(Backend& backend, const Architecture& c, const DeviceLayer& layer,
                                  const MixerRequest& request, const Tensor& x, LayerTrace& traced);

// LFM2's short convolution: in_proj's rows [B | C | x] bound as the key, query and value
// projections; y = C · conv(B · x) with a depthwise causal convolution of the layer's taps (and
// bias) and no activation, then out_proj. The layer has no heads; the trace keeps its taps.
std::unique_ptr<Tensor> runShortConv(Backend& backend, const Architecture& c,
                                     const DeviceLayer& layer, const MixerRequest& request,
                                     const Tensor& x, LayerTrace& traced);

}  // namespace qkv
