#pragma once
// The CPU backend's element-wise non-linearities over Eigen arrays (tanh, exp and erf are
// vectorised there).
#include <Eigen/Core>

#include "core/backend/activation.h"

namespace qkv {

using ArrayMap = Eigen::Map<Eigen::ArrayXf>;
using ConstArrayMap = Eigen::Map<const Eigen::ArrayXf>;

// gpt-oss's expert activation of one gate and up value (activation.h).
float clampedSwiGluOf(float gate, float up);

// a := act(a) for GELU (tanh, exact), ReLU or SiLU; the gated kinds leave it as it is.
void activateInPlace(ArrayMap a, Activation activation);

// a := xIELU(a) with the layer's parameters.
void xieluInPlace(ArrayMap a, const XIeluParameters& p);

// up := act(gate) · up for a gated kind (Backend::glu).
void gateInPlace(ConstArrayMap gate, ArrayMap up, Activation gated);

}  // namespace qkv
