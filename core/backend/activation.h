#pragma once
// The non-linearities the backends implement. The gated kinds compute act(x W_gate) * (x W_up)
// (Backend::glu); the others apply in place (Backend::activate).
namespace qkv {

enum class Activation { GeluTanh, GeluExact, Relu, Silu, SwiGlu, GeluTanhGlu, GeluGlu };

inline bool isGated(Activation a) {
    return a == Activation::SwiGlu || a == Activation::GeluTanhGlu || a == Activation::GeluGlu;
}

}  // namespace qkv
