#include "core/backend/cpu_activations.h"

#include <algorithm>
#include <cmath>
#include <unsupported/Eigen/SpecialFunctions>

namespace qkv {

float clampedSwiGluOf(float gate, float up) {
    using C = ClampedSwiGluConstants;
    gate = std::min(gate, C::kLimit);
    up = std::clamp(up, -C::kLimit, C::kLimit);
    return (up + 1.0f) * (gate / (1.0f + std::exp(-C::kAlpha * gate)));
}

void activateInPlace(ArrayMap a, Activation activation) {
    switch (activation) {
        case Activation::GeluTanh: {
            constexpr float kSqrt2OverPi = 0.7978845608028654f;
            a = 0.5f * a * (1.0f + (kSqrt2OverPi * (a + 0.044715f * a.cube())).tanh());
            break;
        }
        case Activation::GeluExact:
            a = 0.5f * a * (1.0f + (a * 0.7071067811865476f).erf());
            break;
        case Activation::Relu:
            a = a.max(0.0f);
            break;
        case Activation::ReluSquared:
            a = a.max(0.0f).square();
            break;
        case Activation::Silu:  // x·sigmoid(x), Marian's "swish"
            a = a / (1.0f + (-a).exp());
            break;
        default:  // the kinds that read a gate (readsAGate) are gateInPlace's
            break;
    }
}

void xieluInPlace(ArrayMap a, const XIeluParameters& p) {
    for (float& x : a) {
        x = x > 0.0f ? p.alphaP * x * x + p.beta * x
                     : (std::expm1(std::min(x, p.eps)) - x) * p.alphaN + p.beta * x;
    }
}

void gateInPlace(ConstArrayMap gate, ArrayMap up, Activation gated) {
    switch (gated) {
        case Activation::SwiGlu:
            up *= gate / (1.0f + (-gate).exp());
            return;
        case Activation::SigmoidGlu:
            up *= 1.0f / (1.0f + (-gate).exp());
            return;
        case Activation::ProductGlu:
            up *= gate;
            return;
        case Activation::ClampedSwiGlu:
            for (Eigen::Index i = 0; i < up.size(); ++i) up[i] = clampedSwiGluOf(gate[i], up[i]);
            return;
        default: {
            Eigen::ArrayXf g = gate;
            activateInPlace(ArrayMap(g.data(), g.size()), gated == Activation::GeluGlu
                                                              ? Activation::GeluExact
                                                              : Activation::GeluTanh);
            up *= g;
        }
    }
}

}  // namespace qkv
