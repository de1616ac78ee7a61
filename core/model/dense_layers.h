#pragma once
// The dense layers every block runs on a backend: a bound linear layer, and an MLP (a mixture
// of experts runs one per expert, mixture_of_experts.h).
#include <memory>
#include <utility>
#include <vector>

#include "core/backend/activation.h"
#include "core/backend/backend.h"
#include "core/model/device_model.h"

namespace qkv {

// y = x W (+ b) for a bound linear layer, in a new tensor, its columns in the order the model
// uses them (DeviceLinear::outputOrder).
std::unique_ptr<Tensor> applyLinear(Backend& backend, const DeviceLinear& l, const Tensor& x);
// y · factor in place (Gemma 4's layer_scalar, Falcon-H1's multipliers), as y + (factor − 1)·y,
// the backend's weighted row sum: at most an ulp of y from the product. `scratch`, as large as y,
// saves an allocation where the caller has one.
void scaleInPlace(Backend& backend, Tensor& y, float factor, Tensor* scratch = nullptr);

// x's products with the linears of one layer: slots bound to one stored weight (a fused
// projection whose column subsets are the slots, LinearWeights::outputOrder) multiply x once.
class SharedProducts {
  public:
    SharedProducts(Backend& backend, const Tensor& x) : m_be(backend), m_x(x) {}
    std::unique_ptr<Tensor> apply(const DeviceLinear& l);

  private:
    Backend& m_be;
    const Tensor& m_x;
    std::vector<std::pair<const void*, std::unique_ptr<Tensor>>> m_products;  // by source
};

// An MLP: out(act(gate x) · in x) for a gated activation, out(ClampedSwiGlu(in x)) where `in`
// interleaves gate and up (gpt-oss; with `gate` bound, ClampedSwiGlu(gate x, in x)), else
// out(act(in x)) — for xIELU with the layer's `xielu` parameters.
std::unique_ptr<Tensor> feedForward(Backend& backend, Activation activation, const DeviceLinear& in,
                                    const DeviceLinear& gate, const DeviceLinear& out,
                                    const Tensor& x, const XIeluParameters* xielu = nullptr);

}  // namespace qkv
