#include "bench/timing_backend.h"

#include <chrono>

namespace qkv::bench {

template <typename F>
auto TimingBackend::timed(const char* op, F&& f) {
    const auto start = std::chrono::steady_clock::now();
    struct Record {
        TimingBackend* self;
        const char* op;
        std::chrono::steady_clock::time_point start;
        ~Record() {
            self->m_inner->synchronize();
            self->m_seconds[op] +=
                std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        }
    } record{this, op, start};
    return f();
}

std::unique_ptr<Tensor> TimingBackend::create(int rows, int cols) {
    return timed("create", [&] { return m_inner->create(rows, cols); });
}
std::unique_ptr<Tensor> TimingBackend::upload(const float* data, int rows, int cols) {
    return timed("upload", [&] { return m_inner->upload(data, rows, cols); });
}
std::unique_ptr<Tensor> TimingBackend::weight(const MatrixView& w) { return m_inner->weight(w); }
std::unique_ptr<Tensor> TimingBackend::vector(const VectorView& v) { return m_inner->vector(v); }
void TimingBackend::download(const Tensor& t, float* out) {
    timed("download", [&] { m_inner->download(t, out); });
}
void TimingBackend::enqueueDownload(const Tensor& t, float* out) {
    timed("download", [&] { m_inner->enqueueDownload(t, out); });
}
void TimingBackend::synchronize() { m_inner->synchronize(); }
void TimingBackend::linear(const Tensor& x, const Tensor& w, const Tensor* b, Tensor& y) {
    timed("linear", [&] { m_inner->linear(x, w, b, y); });
}
void TimingBackend::layerNorm(const Tensor& x, const Tensor& g, const Tensor* b, float eps,
                              Tensor& y) {
    timed("layerNorm", [&] { m_inner->layerNorm(x, g, b, eps, y); });
}
void TimingBackend::rmsNorm(const Tensor& x, const Tensor& g, float eps, Tensor& y) {
    timed("rmsNorm", [&] { m_inner->rmsNorm(x, g, eps, y); });
}
void TimingBackend::activate(Tensor& x, Activation a) {
    timed("activate", [&] { m_inner->activate(x, a); });
}
void TimingBackend::glu(const Tensor& g, Tensor& u, Activation a) {
    timed("glu", [&] { m_inner->glu(g, u, a); });
}

void TimingBackend::clampedSwiGlu(const Tensor& gateUp, Tensor& out) {
    timed("glu", [&] { m_inner->clampedSwiGlu(gateUp, out); });
}
void TimingBackend::xielu(Tensor& x, const XIeluParameters& parameters) {
    timed("activate", [&] { m_inner->xielu(x, parameters); });
}
void TimingBackend::add(Tensor& acc, const Tensor& x) {
    timed("add", [&] { m_inner->add(acc, x); });
}
void TimingBackend::rmsNormHeads(const Tensor& x, int d, const Tensor& g, float eps, Tensor& y) {
    timed("rmsNormHeads", [&] { m_inner->rmsNormHeads(x, d, g, eps, y); });
}

void TimingBackend::rope(const Tensor& x, int d, const RotaryFrequencies& frequencies,
                         int firstPosition, Tensor& y) {
    timed("rope", [&] { m_inner->rope(x, d, frequencies, firstPosition, y); });
}
void TimingBackend::gaussianTopK(const Tensor& x, float z, Tensor& y) {
    timed("gaussianTopK", [&] { m_inner->gaussianTopK(x, z, y); });
}

void TimingBackend::normalizeHeads(const Tensor& x, int headDim, float eps, Tensor& y) {
    timed("normalizeHeads", [&] { m_inner->normalizeHeads(x, headDim, eps, y); });
}
void TimingBackend::causalConv(const Tensor& x, const Tensor& taps, const Tensor* bias, Tensor& y) {
    timed("causalConv", [&] { m_inner->causalConv(x, taps, bias, y); });
}
void TimingBackend::copyRows(const Tensor& s, int first, int count, Tensor& d, int dFirst) {
    timed("copyRows", [&] { m_inner->copyRows(s, first, count, d, dFirst); });
}
void TimingBackend::gatherRows(const Tensor& s, const std::vector<int>& rows, Tensor& d) {
    timed("gatherRows", [&] { m_inner->gatherRows(s, rows, d); });
}
void TimingBackend::addWeightedRows(const Tensor& s, const std::vector<int>& rows,
                                    const std::vector<float>& weights, Tensor& d) {
    timed("addWeightedRows", [&] { m_inner->addWeightedRows(s, rows, weights, d); });
}
void TimingBackend::gatherColumns(const Tensor& first, const Tensor* second,
                                  const std::vector<int>& columns, Tensor& d) {
    timed("gatherColumns", [&] { m_inner->gatherColumns(first, second, columns, d); });
}
void TimingBackend::attention(const Tensor& q, const Tensor& k, const Tensor& v,
                              const AttentionLayout& layout, const AttentionOptions& options,
                              Tensor& out, const AttentionCapture* capture) {
    timed("attention", [&] { m_inner->attention(q, k, v, layout, options, out, capture); });
}
void TimingBackend::gatedDeltaRule(const Tensor& q, const Tensor& k, const Tensor& v,
                                   const Tensor& b, const Tensor& a, const Tensor& aLog,
                                   const Tensor& dtBias, const DeltaRuleLayout& layout, Tensor& out,
                                   const AttentionCapture* capture) {
    timed("gatedDeltaRule",
          [&] { m_inner->gatedDeltaRule(q, k, v, b, a, aLog, dtBias, layout, out, capture); });
}

void TimingBackend::stateSpace(const Tensor& x, const Tensor& B, const Tensor& C, const Tensor& dt,
                               const Tensor& aLog, const Tensor& dtBias, const Tensor& D,
                               const StateSpaceLayout& layout, Tensor& out,
                               const AttentionCapture* capture) {
    timed("stateSpace",
          [&] { m_inner->stateSpace(x, B, C, dt, aLog, dtBias, D, layout, out, capture); });
}

}  // namespace qkv::bench
