#pragma once
// Internal to gpu/: the push constants of attention's three dispatches per chunk of heads —
// scores = scale · q_h k_hᵀ (a batched GEMM), the masked softmax (score transform, soft-cap and
// window folded in) and out_h = A_h v_h (a batched GEMM) — built from the op's shapes alone, so
// the backend's attention() is allocation and dispatch only.
#include <cstddef>
#include <cstdint>

#include "core/backend/backend.h"
#include "gpu/vulkan_pipelines.h"

namespace qkv::gpu {

// The row strides of attention's operands and the shape of its heads.
struct AttentionOperands {
    uint32_t queries;  // n_q: rows of q and out
    uint32_t keys;     // n_k: rows of k and v (= n_q but in cross-attention)
    uint32_t queryColumns, keyColumns, valueColumns, outColumns;
    AttentionLayout layout;
};

// Per-head n_q x n_k matrices start on 256-byte boundaries; heads are processed in chunks so the
// scratch stays within one shader-addressable range (at most `maxScratchBytes`).
struct ScratchPlan {
    size_t headStride;  // floats from one head's matrix to the next
    int chunk;          // heads per chunk
    size_t floats() const { return headStride * chunk; }
};
ScratchPlan planScratch(int queries, int keys, int heads, uint64_t maxScratchBytes);

// Raw scores of heads [firstHead, firstHead + chunk heads) into the chunk's scratch.
GemmParams scoreParams(const AttentionOperands& shape, const AttentionOptions& options,
                       const ScratchPlan& plan, int firstHead);
SoftmaxParams softmaxParams(const AttentionOperands& shape, const AttentionOptions& options,
                            const ScratchPlan& plan, int firstHead);
// out_h = A_h v_h for the chunk's heads, A read from the chunk's scratch.
GemmParams valueParams(const AttentionOperands& shape, const AttentionOptions& options,
                       const ScratchPlan& plan, int firstHead);

}  // namespace qkv::gpu
