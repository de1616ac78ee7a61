#pragma once
// A Backend decorator that times each operation of the backend it wraps (wall clock,
// synchronising after every call), for `qkvlab-bench --profile`.
#include <map>
#include <memory>
#include <string>

#include "core/backend/backend.h"

namespace qkv::bench {

class TimingBackend final : public Backend {
  public:
    explicit TimingBackend(std::unique_ptr<Backend> inner) : m_inner(std::move(inner)) {}

    const std::map<std::string, double>& seconds() const { return m_seconds; }
    void reset() { m_seconds.clear(); }

    std::string name() const override { return m_inner->name(); }
    std::unique_ptr<Tensor> create(int rows, int cols) override;
    std::unique_ptr<Tensor> upload(const float* rowMajor, int rows, int cols) override;
    std::unique_ptr<Tensor> weight(const MatrixView& w) override;
    std::unique_ptr<Tensor> vector(const VectorView& v) override;
    void download(const Tensor& t, float* rowMajor) override;
    void enqueueDownload(const Tensor& t, float* rowMajor) override;
    void synchronize() override;
    void linear(const Tensor& x, const Tensor& w, const Tensor* bias, Tensor& y) override;
    void layerNorm(const Tensor& x, const Tensor& gamma, const Tensor* beta, float eps,
                   Tensor& y) override;
    void rmsNorm(const Tensor& x, const Tensor& gamma, float eps, Tensor& y) override;
    void activate(Tensor& x, Activation activation) override;
    void glu(const Tensor& gate, Tensor& up, Activation gated) override;
    void clampedSwiGlu(const Tensor& gateUp, Tensor& out) override;
    void add(Tensor& accumulator, const Tensor& x) override;
    void xielu(Tensor& x, const XIeluParameters& parameters) override;
    void rmsNormHeads(const Tensor& x, int headDim, const Tensor& gamma, float eps,
                      Tensor& y) override;
    void rope(const Tensor& x, int headDim, const RotaryFrequencies& frequencies, int firstPosition,
              Tensor& y) override;
    void normalizeHeads(const Tensor& x, int headDim, float eps, Tensor& y) override;
    void gaussianTopK(const Tensor& x, float z, Tensor& y) override;
    void causalConv(const Tensor& x, const Tensor& taps, const Tensor* bias, Tensor& y) override;
    void copyRows(const Tensor& source, int first, int count, Tensor& destination,
                  int destinationFirst) override;
    void gatherRows(const Tensor& source, const std::vector<int>& rows,
                    Tensor& destination) override;
    void addWeightedRows(const Tensor& source, const std::vector<int>& rows,
                         const std::vector<float>& weights, Tensor& destination) override;
    void gatherColumns(const Tensor& first, const Tensor* second, const std::vector<int>& columns,
                       Tensor& destination) override;
    void attention(const Tensor& q, const Tensor& k, const Tensor& v, const AttentionLayout& layout,
                   const AttentionOptions& options, Tensor& out,
                   const AttentionCapture* capture) override;
    void gatedDeltaRule(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& b,
                        const Tensor& a, const Tensor& aLog, const Tensor& dtBias,
                        const DeltaRuleLayout& layout, Tensor& out,
                        const AttentionCapture* capture) override;
    void stateSpace(const Tensor& x, const Tensor& B, const Tensor& C, const Tensor& dt,
                    const Tensor& aLog, const Tensor& dtBias, const Tensor& D,
                    const StateSpaceLayout& layout, Tensor& out,
                    const AttentionCapture* capture) override;

  private:
    template <typename F>
    auto timed(const char* op, F&& f);

    std::unique_ptr<Backend> m_inner;
    std::map<std::string, double> m_seconds;
};

}  // namespace qkv::bench
