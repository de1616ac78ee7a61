#include "gpu/attention_params.h"

#include <algorithm>

namespace qkv::gpu {
namespace {

uint32_t vectorFlag(bool aligned, uint32_t flag) { return aligned ? flag : 0; }

// Scratch holds one chunk's heads only: an operand offset of minus the chunk's first head makes
// (batchBase + z) * stride land on local head z (the uint arithmetic wraps).
uint32_t chunkOffset(const ScratchPlan& plan, int firstHead) {
    return static_cast<uint32_t>(0u - firstHead * plan.headStride);
}

// C_z = alpha A_z B_z over the chunk's heads z: the fields both of attention's GEMMs set alike.
GemmParams headGemm(uint32_t m, uint32_t n, uint32_t k, uint32_t lda, uint32_t ldb, uint32_t ldc,
                    int firstHead) {
    GemmParams p{};
    p.m = m;
    p.n = n;
    p.k = k;
    p.lda = lda;
    p.ldb = ldb;
    p.ldc = ldc;
    p.batchBase = firstHead;
    p.alpha = 1.0f;
    return p;
}

}  // namespace

ScratchPlan planScratch(int queries, int keys, int heads, uint64_t maxScratchBytes) {
    const size_t headStride = (static_cast<size_t>(queries) * keys + 63) / 64 * 64;
    const size_t fit = maxScratchBytes / (headStride * sizeof(float));
    return {headStride, static_cast<int>(std::clamp<size_t>(fit, 1, static_cast<size_t>(heads)))};
}

GemmParams scoreParams(const AttentionOperands& shape, const AttentionOptions& options,
                       const ScratchPlan& plan, int firstHead) {
    const uint32_t n = shape.queries, keys = shape.keys, dk = shape.layout.headDim;
    GemmParams p = headGemm(n, keys, dk, shape.queryColumns, shape.keyColumns, keys, firstHead);
    p.cOffset = chunkOffset(plan, firstHead);
    p.aBatchStride = dk;
    p.bBatchStride = dk;
    p.cBatchStride = plan.headStride;
    p.aGroup = shape.layout.queryGroup;
    p.bGroup = shape.layout.keyGroup;
    p.alpha = options.scaleOutside ? 1.0f : options.scaleFor(dk);
    p.flags = vectorFlag(shape.queryColumns % 4 == 0 && dk % 4 == 0, gemm::kVecA) |
              vectorFlag(shape.keyColumns % 4 == 0 && dk % 4 == 0, gemm::kVecB) |
              vectorFlag(keys % 4 == 0, gemm::kVecC);
    return p;
}

SoftmaxParams softmaxParams(const AttentionOperands& shape, const AttentionOptions& options,
                            const ScratchPlan& plan, int firstHead) {
    SoftmaxParams p{};
    p.n = shape.queries;
    p.keys = shape.keys;
    p.firstHead = static_cast<uint32_t>(firstHead);
    // 2: one bias every head shares (n_q rows), 1: one per head.
    p.hasBias = !options.positionBias                           ? 0u
                : options.positionBias->rows() == shape.queries ? 2u
                                                                : 1u;
    p.hasSinks = options.sinks ? 1u : 0u;
    p.headStride = plan.headStride;
    p.causal = options.causal;
    p.maskSelf = options.maskSelf;
    p.transform = options.transform == ScoreTransform::Symmetric ? transform::kSymmetric
                  : options.transform == ScoreTransform::Skew    ? transform::kSkew
                                                                 : transform::kNone;
    p.postScale = options.scaleOutside ? options.scaleFor(shape.layout.headDim) : 1.0f;
    p.softCap = options.softCap;
    p.window = static_cast<uint32_t>(options.window);
    p.reach = static_cast<uint32_t>(options.reach);
    p.chunk = static_cast<uint32_t>(options.chunk);
    return p;
}

GemmParams valueParams(const AttentionOperands& shape, const AttentionOptions& options,
                       const ScratchPlan& plan, int firstHead) {
    const uint32_t n = shape.queries, keys = shape.keys, dv = shape.layout.valueWidth();
    GemmParams p = headGemm(n, dv, keys, keys, shape.valueColumns, shape.outColumns, firstHead);
    p.aOffset = chunkOffset(plan, firstHead);
    p.aBatchStride = plan.headStride;
    p.bBatchStride = dv;
    p.cBatchStride = dv;
    p.aGroup = 1;
    p.bGroup = shape.layout.valueGroup;
    p.flags = vectorFlag(options.causal, gemm::kCausal) | vectorFlag(keys % 4 == 0, gemm::kVecA) |
              vectorFlag(shape.valueColumns % 4 == 0 && dv % 4 == 0, gemm::kVecB) |
              vectorFlag(shape.outColumns % 4 == 0 && dv % 4 == 0, gemm::kVecC);
    return p;
}

}  // namespace qkv::gpu
