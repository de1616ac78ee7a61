#include "gpu/vulkan_mixers.h"

#include <algorithm>

#include "core/util/error.h"
#include "gpu/vulkan_tensor.h"

namespace qkv::gpu {

ScratchPlan Mixers::plan(int queries, int keys, int heads) const {
    return planScratch(queries, keys, heads,
                       std::min<VkDeviceSize>(m_context->properties().limits.maxStorageBufferRange,
                                              VkDeviceSize{256} << 20));
}

void Mixers::attention(const Tensor& q, const Tensor& k, const Tensor& v,
                       const AttentionLayout& layout, const AttentionOptions& options, Tensor& out,
                       const AttentionCapture* capture) {
    const int n = q.rows(), keys = k.rows();
    const int heads = layout.heads;
    const int dv = layout.valueWidth();
    auto columnsNeeded = [&](int group, int width) { return ((heads - 1) / group + 1) * width; };
    m_shapes.require(heads > 0 && layout.headDim > 0 && dv > 0 && layout.queryGroup > 0 &&
                         layout.keyGroup > 0 && layout.valueGroup > 0 && v.rows() == keys &&
                         attentionShapeAllowed(options, n, keys, heads) && out.rows() == n &&
                         out.cols() == heads * dv &&
                         q.cols() >= columnsNeeded(layout.queryGroup, layout.headDim) &&
                         k.cols() >= columnsNeeded(layout.keyGroup, layout.headDim) &&
                         v.cols() >= columnsNeeded(layout.valueGroup, dv),
                     "attention");
    if (std::max(n, keys) > 65535) throw Error("the Vulkan backend handles at most 65535 tokens");
    const AttentionOperands shape{static_cast<uint32_t>(n),
                                  static_cast<uint32_t>(keys),
                                  static_cast<uint32_t>(q.cols()),
                                  static_cast<uint32_t>(k.cols()),
                                  static_cast<uint32_t>(v.cols()),
                                  static_cast<uint32_t>(out.cols()),
                                  layout};
    const ScratchPlan plan = this->plan(n, keys, heads);
    const BufferRegion& raw =
        scratchBuffer(*m_allocator, m_rawScores, plan.floats(), "attention scores");
    const BufferRegion& probabilities =
        scratchBuffer(*m_allocator, m_probabilities, plan.floats(), "attention probabilities");
    // Scores differ from the raw product when transformed or capped: they get their own buffer.
    const bool transform = options.transform != ScoreTransform::None || options.softCap > 0.0f;
    const BufferRegion* scores = transform ? &scratchBuffer(*m_allocator, m_scores, plan.floats(),
                                                            "transformed attention scores")
                                           : &raw;
    for (int base = 0; base < heads; base += plan.chunk) {
        const int count = std::min(plan.chunk, heads - base);
        m_gemm.run(true, scoreParams(shape, options, plan, base), count,
                   rowMajor(q, "attention").region(), rowMajor(k, "attention").region(), raw,
                   nullptr);
        const BufferRegion* bias =
            options.positionBias ? &rowMajor(*options.positionBias, "attention").region() : nullptr;
        const BufferRegion* sinks =
            options.sinks ? &rowMajor(*options.sinks, "attention").region() : nullptr;
        m_recorder.dispatch(Kernel::Softmax,
                            {{&raw, false},
                             {transform ? scores : nullptr, true},
                             {&probabilities, true},
                             {bias, false},
                             {sinks, false}},
                            softmaxParams(shape, options, plan, base), n, count, 1);
        if (capture)
            stageCapture(*capture, base, count, static_cast<size_t>(n) * keys, plan, scores,
                         probabilities);
        m_gemm.run(false, valueParams(shape, options, plan, base), count, probabilities,
                   rowMajor(v, "attention").region(), rowMajor(out, "attention").region(), nullptr);
    }
}

void Mixers::gatedDeltaRule(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& b,
                            const Tensor& a, const Tensor& aLog, const Tensor& dtBias,
                            const DeltaRuleLayout& layout, Tensor& out,
                            const AttentionCapture* capture) {
    const int n = q.rows(), heads = layout.valueHeads;
    if (layout.keyDim > static_cast<int>(QKV_DELTA_RULE_MAX_KEY_DIM))
        throw Error("the Vulkan backend's Gated DeltaNet handles key heads of at most " +
                    std::to_string(QKV_DELTA_RULE_MAX_KEY_DIM) + " dimensions, not " +
                    std::to_string(layout.keyDim));
    if (n > 65535) throw Error("the Vulkan backend handles at most 65535 tokens");
    if (n == 0) return;
    const ScratchPlan plan = this->plan(n, n, heads);
    const BufferRegion& maps =
        scratchBuffer(*m_allocator, m_probabilities, plan.floats(), "implicit attention");
    // out_h = A_h v_h as attention's second product: value head h reads v head h.
    const AttentionOperands shape{static_cast<uint32_t>(n),
                                  static_cast<uint32_t>(n),
                                  static_cast<uint32_t>(q.cols()),
                                  static_cast<uint32_t>(k.cols()),
                                  static_cast<uint32_t>(v.cols()),
                                  static_cast<uint32_t>(out.cols()),
                                  {heads, layout.keyDim, 1, 1, 1, layout.valueDim}};
    const uint32_t workgroup = m_recorder.pipeline(Kernel::DeltaRule).workgroupSize;
    for (int base = 0; base < heads; base += plan.chunk) {
        const int count = std::min(plan.chunk, heads - base);
        const DeltaRuleParams p{static_cast<uint32_t>(n),
                                static_cast<uint32_t>(layout.keyHeads),
                                static_cast<uint32_t>(heads),
                                static_cast<uint32_t>(layout.keyDim),
                                static_cast<uint32_t>(plan.headStride),
                                static_cast<uint32_t>(base),
                                layout.queryScale};
        m_recorder.dispatch(Kernel::DeltaRule,
                            {{&rowMajor(q, "gatedDeltaRule").region(), false},
                             {&rowMajor(k, "gatedDeltaRule").region(), false},
                             {&rowMajor(b, "gatedDeltaRule").region(), false},
                             {&rowMajor(a, "gatedDeltaRule").region(), false},
                             {&vulkan(aLog).region(), false},
                             {&vulkan(dtBias).region(), false},
                             {&maps, true}},
                            p, ceilDiv(n, workgroup), count, 1);
        if (capture)
            stageCapture(*capture, base, count, static_cast<size_t>(n) * n, plan, nullptr, maps);
        m_gemm.run(false, valueParams(shape, AttentionOptions{}, plan, base), count, maps,
                   rowMajor(v, "gatedDeltaRule").region(), rowMajor(out, "gatedDeltaRule").region(),
                   nullptr);
    }
}

void Mixers::stateSpace(const Tensor& x, const Tensor& B, const Tensor& C, const Tensor& dt,
                        const Tensor& aLog, const Tensor& dtBias, const Tensor& D,
                        const StateSpaceLayout& layout, Tensor& out,
                        const AttentionCapture* capture) {
    const int n = x.rows(), heads = layout.heads;
    if (n > 65535) throw Error("the Vulkan backend handles at most 65535 tokens");
    if (n == 0) return;
    StateSpaceParams p{static_cast<uint32_t>(n),
                       static_cast<uint32_t>(heads),
                       static_cast<uint32_t>(layout.headDim),
                       static_cast<uint32_t>(layout.groups),
                       static_cast<uint32_t>(layout.stateDim),
                       0,
                       0,
                       layout.dtMin,
                       layout.dtMax};
    const BufferRegion& decay =
        scratchBuffer(*m_allocator, m_decay, static_cast<size_t>(2) * n * heads, "Mamba-2 decay");
    m_recorder.dispatch(
        Kernel::StateSpaceDecay,
        {{&rowMajor(dt, "stateSpace").region(), false},
         {&vulkan(aLog).region(), false},
         {&vulkan(dtBias).region(), false},
         {&decay, true}},
        p, ceilDiv(heads, m_recorder.pipeline(Kernel::StateSpaceDecay).workgroupSize), 1, 1);
    const ScratchPlan plan = this->plan(n, n, heads);
    const BufferRegion& maps =
        scratchBuffer(*m_allocator, m_probabilities, plan.floats(), "implicit attention");
    // out_h = M_h x_h as attention's second product: head h reads x head h.
    const AttentionOperands shape{static_cast<uint32_t>(n),
                                  static_cast<uint32_t>(n),
                                  static_cast<uint32_t>(C.cols()),
                                  static_cast<uint32_t>(B.cols()),
                                  static_cast<uint32_t>(x.cols()),
                                  static_cast<uint32_t>(out.cols()),
                                  {heads, layout.stateDim, 1, 1, 1, layout.headDim}};
    const uint32_t workgroup = m_recorder.pipeline(Kernel::StateSpaceMap).workgroupSize;
    p.headStride = static_cast<uint32_t>(plan.headStride);
    for (int base = 0; base < heads; base += plan.chunk) {
        const int count = std::min(plan.chunk, heads - base);
        p.firstHead = static_cast<uint32_t>(base);
        m_recorder.dispatch(Kernel::StateSpaceMap,
                            {{&rowMajor(B, "stateSpace").region(), false},
                             {&rowMajor(C, "stateSpace").region(), false},
                             {&decay, false},
                             {&maps, true}},
                            p, ceilDiv(n, workgroup), n, count);
        if (capture)
            stageCapture(*capture, base, count, static_cast<size_t>(n) * n, plan, nullptr, maps);
        m_gemm.run(false, valueParams(shape, AttentionOptions{}, plan, base), count, maps,
                   rowMajor(x, "stateSpace").region(), rowMajor(out, "stateSpace").region(),
                   nullptr);
    }
    const int cols = x.cols();
    const uint32_t groupsY = std::min<uint32_t>(n, 65535);
    m_recorder.dispatch(Kernel::StateSpaceSkip,
                        {{&rowMajor(x, "stateSpace").region(), false},
                         {&vulkan(D).region(), false},
                         {&rowMajor(out, "stateSpace").region(), true}},
                        p, ceilDiv(cols, m_recorder.pipeline(Kernel::StateSpaceSkip).workgroupSize),
                        groupsY, ceilDiv(n, groupsY));
}

void Mixers::causalConv(const Tensor& x, const Tensor& taps, const Tensor* bias, Tensor& y) {
    const int rows = x.rows(), cols = x.cols();
    if (rows == 0 || cols == 0) return;
    const ConvParams p{static_cast<uint32_t>(rows), static_cast<uint32_t>(cols),
                       static_cast<uint32_t>(elements(taps) / cols), bias ? 1u : 0u};
    const uint32_t workgroup = m_recorder.pipeline(Kernel::Conv).workgroupSize;
    const uint32_t groupsY = std::min<uint32_t>(rows, 65535);
    m_recorder.dispatch(Kernel::Conv,
                        {{&rowMajor(x, "causalConv").region(), false},
                         {&vulkan(taps).region(), false},
                         {bias ? &vulkan(*bias).region() : nullptr, false},
                         {&rowMajor(y, "causalConv").region(), true}},
                        p, ceilDiv(cols, workgroup), groupsY, ceilDiv(rows, groupsY));
}

void Mixers::stageCapture(const AttentionCapture& capture, int base, int count, size_t values,
                          const ScratchPlan& plan, const BufferRegion* scores,
                          const BufferRegion& probabilities) {
    for (int local = 0; local < count; ++local) {
        const size_t h = base + local;
        const VkDeviceSize offset = sizeof(float) * plan.headStride * local;
        if (scores && h < capture.scores.size() && capture.scores[h])
            m_staging.download(*scores, offset, values * sizeof(float), capture.scores[h]);
        if (h < capture.probabilities.size() && capture.probabilities[h])
            m_staging.download(probabilities, offset, values * sizeof(float),
                               capture.probabilities[h]);
    }
}

}  // namespace qkv::gpu
