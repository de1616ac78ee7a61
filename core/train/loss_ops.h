#pragma once
// Next-token cross-entropy on logits (tokens x vocab), forward and backward.
#include "core/util/thread_pool.h"

namespace qkv::train {

// Sum over rows of -log softmax(logits[r])[targets[r]]; keeps each row's log-sum-exp. The sum
// is taken in double, chunk by chunk in order.
template <typename T>
double crossEntropyForward(ThreadPool& pool, const T* logits, const int* targets, int rows,
                           int vocab, T* logSumExp);

// dlogits = (softmax(logits) - onehot(target)) * scale (overwritten; may alias logits).
template <typename T>
void crossEntropyBackward(ThreadPool& pool, const T* logits, const int* targets, const T* logSumExp,
                          int rows, int vocab, T scale, T* dlogits);

}  // namespace qkv::train
