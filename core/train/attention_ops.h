#pragma once
// Causal multi-head attention for training, forward and backward. Q, K and V are column blocks
// of one projection matrix P (rows = tokens of `sequences` sequences of `length` tokens); with
// tied weights two slots name the same block (e.g. shared-qk: kColumn == qColumn), and the
// backward pass adds both slots' gradients into that block, which is exactly the gradient of a
// parameter used twice.
#include "core/train/model_shape.h"
#include "core/util/thread_pool.h"

namespace qkv::train {

struct AttentionShape {
    int sequences = 0;
    int length = 0;
    int heads = 0;
    int headDim = 0;
    int projectionStride = 0;  // columns of P
    int qColumn = 0;           // first column of the Q slot in P (head h at + h * headDim)
    int kColumn = 0;
    int vColumn = 0;

    int width() const { return heads * headDim; }

    // The layout training uses: per token, the tying's sources side by side (heads x headDim
    // columns each), each slot pointing at the source it shares.
    static AttentionShape forTying(const AttentionTying& tying, int sequences, int length,
                                   int heads, int headDim);
};

// probs: sequences * heads * length * length (row-major per sequence and head, zero above the
// diagonal) = softmax(Q K^T / sqrt(d_k) masked causally); out (tokens x heads*d_k) = probs V.
template <typename T>
void attentionForward(ThreadPool& pool, const AttentionShape& s, const T* p, T* probs, T* out);

// Adds dQ, dK, dV into the matching blocks of dp (tokens x projectionStride), which the caller
// zeroes first.
template <typename T>
void attentionBackward(ThreadPool& pool, const AttentionShape& s, const T* p, const T* probs,
                       const T* dOut, T* dp);

}  // namespace qkv::train
