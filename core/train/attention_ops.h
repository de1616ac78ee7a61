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
    int headDim = 0;           // width of a head's value and output; scores scale 1/sqrt(headDim)
    int scoreDim = 0;          // width of a head's query and key (d_model for full-bilinear)
    int projectionStride = 0;  // columns of P
    int qColumn = 0;           // first column of the Q slot in P (head h at + h * scoreDim)
    int kColumn = 0;           // head h at + h * keyHeadStride
    int vColumn = 0;           // head h at + h * headDim
    int keyHeadStride = 0;     // 0: every head reads the same key columns (full-bilinear's x)
    bool scaleOutside = false;
    bool unitKeys = false;  // k := k / |k| per head (Reformer)
    bool maskSelf = false;  // the diagonal is masked unless it is the row's only key (Reformer)

    int width() const { return heads * headDim; }

    // The layout training uses: per token, the variant's projections side by side. Factored
    // variants: the sources (heads x headDim columns each), each slot pointing at its source.
    // Full-bilinear: [x W_1 + c_1 | ... | x W_H + c_H | V | x], the keys being x itself.
    static AttentionShape forTying(const AttentionTying& tying, int sequences, int length,
                                   int heads, int headDim);
};

// probs: sequences * heads * length * length (row-major per sequence and head, zero above the
// diagonal) = the weights applied to V: softmax(Q K^T / sqrt(d_k)) masked causally, or with
// scaleOutside softmax(Q K^T) / sqrt(d_k); out (tokens x heads*d_k) = probs V.
template <typename T>
void attentionForward(ThreadPool& pool, const AttentionShape& s, const T* p, T* probs, T* out);

// Adds dQ, dK, dV into the matching blocks of dp (tokens x projectionStride), which the caller
// zeroes first.
template <typename T>
void attentionBackward(ThreadPool& pool, const AttentionShape& s, const T* p, const T* probs,
                       const T* dOut, T* dp);

// Sum over every (sequence, head, query) row of the entropy (nats) of the softmax behind probs,
// and the number of rows it adds (rows with one allowed key add 0 but count).
template <typename T>
double attentionEntropySum(const AttentionShape& s, const T* probs, long& rows);

}  // namespace qkv::train
