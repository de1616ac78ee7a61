#pragma once
// The non-linearities the backends implement. The gated kinds compute act(x W_gate) * (x W_up)
// (Backend::glu); ClampedSwiGlu reads gate and up interleaved in one product
// (Backend::clampedSwiGlu); the others apply in place (Backend::activate).
#include "core/backend/clamped_swiglu.h"

namespace qkv {

enum class Activation {
    GeluTanh,
    GeluExact,
    Relu,
    ReluSquared,  // relu(x)²: Nemotron-H's MLPs and experts ("relu2")
    Silu,
    SwiGlu,
    GeluTanhGlu,
    GeluGlu,
    ClampedSwiGlu,
    SigmoidGlu,  // σ(gate) · up: gated attention's output gate (Qwen3.5, Qwen3-Next)
    ProductGlu,  // gate · up, no activation: LFM2's short convolution (B · x, C · conv)
    XIelu        // Apertus's MLP: with each layer's own parameters (Backend::xielu)
};

// xIELU (Apertus) as its layer's learned scalars make it: x > 0: alphaP·x² + beta·x, else
// (expm1(min(x, eps)) − x)·alphaN + beta·x, where alphaP = softplus(alpha_p) and alphaN =
// beta + softplus(alpha_n) of the checkpoint's values (eps is negative, about −1e-6).
struct XIeluParameters {
    float alphaP = 0.0f, alphaN = 0.0f, beta = 0.0f, eps = 0.0f;
};

// gpt-oss's expert activation (clamped_swiglu.h).
struct ClampedSwiGluConstants {
    static constexpr float kLimit = QKV_CLAMPED_SWIGLU_LIMIT;
    static constexpr float kAlpha = QKV_CLAMPED_SWIGLU_ALPHA;
};

inline bool isGated(Activation a) {
    return a == Activation::SwiGlu || a == Activation::GeluTanhGlu || a == Activation::GeluGlu;
}

// The kinds that read a gate beside their input (Backend::glu, clampedSwiGlu), not activate().
inline bool readsAGate(Activation a) {
    return isGated(a) || a == Activation::ClampedSwiGlu || a == Activation::SigmoidGlu ||
           a == Activation::ProductGlu;
}

}  // namespace qkv
