#pragma once
// A Mamba-2 layer (Nemotron-H's, Granite 4's and Falcon-H1's state-space layers) on a backend:
//   C, B, x    the query, key and value slots (the W configuration picks which of W_C, W_B, W_x
//              fills each), every projection a column block of in_proj, through its own short
//              causal convolution (with a bias) and SiLU
//   core       Backend::stateSpace with dt from in_proj's dt columns, A_log, dt_bias and D
//   output     out_proj of y gated by silu(z) and RMS-normed per group (Architecture::mamba2)
// The trace gets each head's implicit attention M as its probabilities (no scores: there is no
// softmax), its skip D, and the slots' C, B and x in the layout attention's heads use (head h
// reads B/C group h / (heads / groups)).
#include <memory>

#include "core/model/architecture.h"
#include "core/model/attention_trace.h"
#include "core/model/convolved_projections.h"

namespace qkv {

// The layer's mixer output (x's rows, d_model wide); traced gets what `request` captures. `c`
// describes the model at this layer (Architecture::atLayer).
std::unique_ptr<Tensor> runMamba2(Backend& backend, const Architecture& c, const DeviceLayer& layer,
                                  const MixerRequest& request, const Tensor& x, LayerTrace& traced);

}  // namespace qkv
