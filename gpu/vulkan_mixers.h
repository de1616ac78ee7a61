#pragma once
// Internal to gpu/: the Vulkan backend's token mixers — softmax attention, Gated DeltaNet's
// implicit attention and the short causal convolution — as dispatches over per-head scratch
// matrices, captured heads staged for download.
#include <memory>

#include "core/backend/backend.h"
#include "core/backend/op_shapes.h"
#include "gpu/attention_params.h"
#include "gpu/vulkan_gemm.h"
#include "gpu/vulkan_memory.h"
#include "gpu/vulkan_recorder.h"
#include "gpu/vulkan_staging.h"

namespace qkv::gpu {

class Mixers {
  public:
    Mixers(std::shared_ptr<Context> context, std::shared_ptr<DeviceAllocator> allocator,
           CommandRecorder& recorder, Staging& staging, GemmDispatcher& gemm)
        : m_context(std::move(context)),
          m_allocator(std::move(allocator)),
          m_recorder(recorder),
          m_staging(staging),
          m_gemm(gemm) {}

    // Backend::attention for options.firstQuery == 0: per chunk of heads, a batched GEMM for the
    // scaled scores, a masked softmax (score transform folded in) and a batched GEMM for A V.
    void attention(const Tensor& q, const Tensor& k, const Tensor& v, const AttentionLayout& layout,
                   const AttentionOptions& options, Tensor& out, const AttentionCapture* capture);
    // Backend::gatedDeltaRule: per chunk of value heads, the implicit maps (delta_rule.comp),
    // then out = A V (the causal batched GEMM).
    void gatedDeltaRule(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& b,
                        const Tensor& a, const Tensor& aLog, const Tensor& dtBias,
                        const DeltaRuleLayout& layout, Tensor& out,
                        const AttentionCapture* capture);
    void causalConv(const Tensor& x, const Tensor& taps, const Tensor* bias, Tensor& y);
    // Backend::stateSpace: the decay's cumulative sums (state_space_decay.comp), per chunk of
    // heads the implicit maps (state_space_map.comp), out = M x (the causal batched GEMM), then
    // out += D x (state_space_skip.comp).
    void stateSpace(const Tensor& x, const Tensor& B, const Tensor& C, const Tensor& dt,
                    const Tensor& aLog, const Tensor& dtBias, const Tensor& D,
                    const StateSpaceLayout& layout, Tensor& out, const AttentionCapture* capture);

  private:
    ScratchPlan plan(int queries, int keys, int heads) const;
    // Queues the captured heads of a chunk for download at the next flush.
    void stageCapture(const AttentionCapture& capture, int base, int count, size_t values,
                      const ScratchPlan& plan, const BufferRegion* scores,
                      const BufferRegion& probabilities);

    const OpShapes m_shapes{"vulkan"};
    std::shared_ptr<Context> m_context;
    std::shared_ptr<DeviceAllocator> m_allocator;
    CommandRecorder& m_recorder;
    Staging& m_staging;
    GemmDispatcher& m_gemm;
    std::shared_ptr<BufferRegion> m_rawScores, m_scores, m_probabilities, m_decay;
};

}  // namespace qkv::gpu
