#pragma once
// The non-linearities the backends implement. The gated kinds compute act(x W_gate) * (x W_up)
// (Backend::glu); ClampedSwiGlu reads gate and up interleaved in one product
// (Backend::clampedSwiGlu); the others apply in place (Backend::activate).
namespace qkv {

enum class Activation {
    GeluTanh,
    GeluExact,
    Relu,
    Silu,
    SwiGlu,
    GeluTanhGlu,
    GeluGlu,
    ClampedSwiGlu
};

// gpt-oss's expert activation, fixed in its modelling code: the gate clamped to at most kLimit and
// the up projection to [-kLimit, kLimit]; out = (up + 1) · gate · sigmoid(kAlpha · gate).
struct ClampedSwiGluConstants {
    static constexpr float kLimit = 7.0f;
    static constexpr float kAlpha = 1.702f;
};

inline bool isGated(Activation a) {
    return a == Activation::SwiGlu || a == Activation::GeluTanhGlu || a == Activation::GeluGlu;
}

}  // namespace qkv
