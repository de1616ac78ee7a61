#pragma once
// Mamba-2 layers as Nemotron-H, Granite 4 and Falcon-H1 keep them (each family names the config
// keys): in_proj's rows [z | x | B | C | dt] (B and C group-major), conv1d over [x | B | C] with
// an optional bias, A_log, D and dt_bias per head, the gated norm's weight over the heads'
// channels and out_proj. C, B and x fill the query, key and value slots (Mixer::Mamba2).
#include "core/model/families/binding.h"

namespace qkv::families {

// The config keys of a family's Mamba-2 shape.
struct Mamba2Keys {
    const char* heads;    // Mamba heads
    const char* headDim;  // each head's channels of x
    const char* groups;   // B/C groups
    const char* state;    // the state size: B's and C's width per group
    const char* kernel;   // the convolution's taps
};

// The Mamba-2 layer kind (no rotary; an MLP unless the family says otherwise) and the
// convolution's taps in c.mamba2; throws naming the key when the groups do not divide the heads.
LayerKind readMamba2(const ConfigReader& r, const Mamba2Keys& keys, Architecture& c);

// Δ's clamp from time_step_limit ([low, high], high possibly infinite), where the config has it.
void readTimeStepLimit(const ConfigReader& r, Architecture& c);

// A Mamba-2 mixer under `p` ("layers.N.mixer.") as `c` describes it (Architecture::atLayer, or
// besideAt); biases where the file has them, the gated norm's weight where c.mamba2 has one.
void bindMamba2(TensorBinder& b, const Architecture& c, const std::string& p, LayerWeights& layer);

}  // namespace qkv::families
