#pragma once
// The CPU backend's attention (Backend::attention), head by head on the pool's threads. Each head
// takes its query rows in blocks: the block's scores against the keys it may see, the masked
// softmax, then A·V, so a head that is not captured never holds more than one block of scores
// (a few MB at 4,096 tokens, not an n x n matrix per thread) and a causal head skips the keys
// after each block. A captured head writes its whole rows (scores before masking are kept for
// every key). A score transform reads S and Sᵀ, so it computes the head's whole matrix at once.
#include "core/backend/backend.h"
#include "core/util/thread_pool.h"

namespace qkv {

// Query rows per block: 64 rows of 4,096 keys are 1 MB of scratch per thread, and a block's
// scores stay in cache between the product, the softmax and A·V.
constexpr int kAttentionQueryBlock = 64;

// Row-major host operands; q, k and v hold heads side by side (AttentionLayout).
struct CpuAttentionOperands {
    const float* q;
    int queryColumns;
    const float* k;
    int keyColumns;
    const float* v;
    int valueColumns;
    int queries;                // rows of q (every query, also those before options.firstQuery)
    int keys;                   // rows of k and v
    float* out;                 // (queries - firstQuery) x heads * layout.valueWidth()
    const float* positionBias;  // heads * queries rows of keys, or null
    bool biasSharedByHeads;     // positionBias has queries rows, which every head adds
    const float* sinks;         // one logit per head (AttentionOptions::sinks), or null
};

void cpuAttention(ThreadPool& pool, const CpuAttentionOperands& operands,
                  const AttentionLayout& layout, const AttentionOptions& options,
                  const AttentionCapture* capture);

}  // namespace qkv
