#pragma once
// The CPU backend's token mixers without a softmax (Backend::causalConv, gatedDeltaRule), on
// row-major host operands.
#include "core/backend/backend.h"
#include "core/util/thread_pool.h"

namespace qkv {

// y (tokens x channels) := the depthwise causal convolution of x with `kernel` taps per channel
// (taps[c * kernel + j]; the last tap multiplies the current token).
void cpuCausalConv(ThreadPool& pool, const float* x, int tokens, int channels, const float* taps,
                   int kernel, float* y);

struct DeltaRuleOperands {
    const float* q;  // tokens x keyHeads * keyDim
    const float* k;
    const float* v;  // tokens x valueHeads * valueDim
    const float* b;  // tokens x valueHeads
    const float* a;
    const float* aLog;  // valueHeads
    const float* dtBias;
    int tokens;
    float* out;  // tokens x valueHeads * valueDim
};

// Head by head on the pool's threads. Each row of the implicit map is computed from the rows
// u_s = β_s k_sᵀ Π_{r=s+1..t} γ_r (I − β_r k_r k_rᵀ), updated token by token in float64 (a rank-1
// update each), so A_t· = U q_t and out_t = A_t· V; a captured head keeps A.
void cpuGatedDeltaRule(ThreadPool& pool, const DeltaRuleOperands& operands,
                       const DeltaRuleLayout& layout, const AttentionCapture* capture);

}  // namespace qkv
