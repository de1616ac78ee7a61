#pragma once
// The shapes the Backend ops require, checked the same way by the CPU and the Vulkan backend: a
// mismatch is an internal error (the forward shapes every tensor), said with the backend's and
// the op's names.
#include <vector>

#include "core/backend/activation.h"
#include "core/backend/backend.h"

namespace qkv {

class OpShapes {
  public:
    explicit OpShapes(const char* backend) : m_backend(backend) {}

    void linear(const Tensor& x, const Tensor& w, const Tensor* bias, const Tensor& y) const;
    void layerNorm(const Tensor& x, const Tensor& gamma, const Tensor* beta, const Tensor& y) const;
    void rmsNorm(const Tensor& x, const Tensor& gamma, const Tensor& y) const;
    void rmsNormHeads(const Tensor& x, int headDim, const Tensor& gamma, const Tensor& y) const;
    void normalizeHeads(const Tensor& x, int headDim, const Tensor& y) const;
    void gaussianTopK(const Tensor& x, const Tensor& y) const;
    void rope(const Tensor& x, int headDim, int rotaryDims, int firstPosition,
              const Tensor& y) const;
    void causalConv(const Tensor& x, const Tensor& taps, const Tensor* bias, const Tensor& y) const;
    void stateSpace(const Tensor& x, const Tensor& B, const Tensor& C, const Tensor& dt,
                    const Tensor& aLog, const Tensor& dtBias, const Tensor& D,
                    const StateSpaceLayout& layout, const Tensor& out) const;
    void gatedDeltaRule(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& b,
                        const Tensor& a, const Tensor& aLog, const Tensor& dtBias,
                        const DeltaRuleLayout& layout, const Tensor& out) const;
    // activate() takes the kinds applied in place alone: the gated ones are glu's, xIELU is
    // xielu's (it needs its layer's parameters).
    void activate(Activation activation) const;
    void glu(const Tensor& gate, const Tensor& up, Activation gated) const;
    void clampedSwiGlu(const Tensor& gateUp, const Tensor& out) const;
    void add(const Tensor& accumulator, const Tensor& x) const;
    void copyRows(const Tensor& source, int first, int count, const Tensor& destination,
                  int destinationFirst) const;
    void gatherRows(const Tensor& source, const std::vector<int>& rows,
                    const Tensor& destination) const;
    void addWeightedRows(const Tensor& source, const std::vector<int>& rows,
                         const std::vector<float>& weights, const Tensor& destination) const;
    void gatherColumns(const Tensor& first, const Tensor* second, const std::vector<int>& columns,
                       const Tensor& destination) const;
    // Throws the internal error for `op` unless `ok`.
    void require(bool ok, const char* op) const;

  private:
    const char* m_backend;
};

}  // namespace qkv
