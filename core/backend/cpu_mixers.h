#pragma once
// The CPU backend's token mixers without a softmax (Backend::causalConv, gatedDeltaRule), on
// row-major host operands.
#include "core/backend/backend.h"
#include "core/util/thread_pool.h"

namespace qkv {

// y (tokens x channels) := the depthwise causal convolution of x with `kernel` taps per channel
// (taps[c * kernel + j]; the last tap multiplies the current token), plus bias[c] unless null.
void cpuCausalConv(ThreadPool& pool, const float* x, int tokens, int channels, const float* taps,
                   int kernel, const float* bias, float* y);

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

// Head by head on the pool's threads. A captured head's implicit map is computed row by row from
// u_s = β_s k_sᵀ Π_{r=s+1..t} γ_r (I − β_r k_r k_rᵀ), updated token by token in float64 (a rank-1
// update each), so A_t· = U q_t and out_t = A_t· V, and kept; another head's output comes from
// its d_k x d_v state, updated the same way (linear in the tokens), in float64 too.
void cpuGatedDeltaRule(ThreadPool& pool, const DeltaRuleOperands& operands,
                       const DeltaRuleLayout& layout, const AttentionCapture* capture);

struct StateSpaceOperands {
    const float* x;  // tokens x heads * headDim
    const float* B;  // tokens x groups * stateDim
    const float* C;
    const float* dt;    // tokens x heads
    const float* aLog;  // heads
    const float* dtBias;
    const float* D;
    int tokens;
    float* out;  // tokens x heads * headDim
};

// Head by head on the pool's threads, in float64: a captured head from the decay's cumulative
// sums, M = (C Bᵀ) ∘ the decay, out = M x + D x, keeping M; another from its p x N state updated
// token by token (linear in the tokens).
void cpuStateSpace(ThreadPool& pool, const StateSpaceOperands& operands,
                   const StateSpaceLayout& layout, const AttentionCapture* capture);

}  // namespace qkv
