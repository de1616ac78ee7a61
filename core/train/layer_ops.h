#pragma once
// Forward and backward of the per-token layers of GPT-2 for training: linear (Conv1D, weight
// [in, out]), LayerNorm, GELU (tanh approximation, "gelu_new"), token + position embedding.
// Activations are row-major, one token per row. Backward functions add into parameter
// gradients (they accumulate over the batch and over tied slots); what they do with input
// gradients is stated per function. Instantiated for float (training) and double (checks).
#include <cstddef>

#include "core/util/thread_pool.h"

namespace qkv::train {

// y (rows x out) = x (rows x in) W (in x out) + b.
template <typename T>
void linearForward(ThreadPool& pool, const T* x, int rows, int in, const T* w, const T* b, int out,
                   T* y);
// dW += x^T dy, db += column sums of dy, and dx = dy W^T (overwritten) when dx is not null.
template <typename T>
void linearBackward(ThreadPool& pool, const T* x, const T* dy, int rows, int in, int out,
                    const T* w, T* dx, T* dw, T* db);

// y = (x - mean) / sqrt(var + eps) * gamma + beta per row; keeps mean and 1/sqrt(var + eps).
template <typename T>
void layerNormForward(ThreadPool& pool, const T* x, const T* gamma, const T* beta, int rows,
                      int cols, T eps, T* y, T* mean, T* rstd);
// dx += d(loss)/dx (so the residual stream's gradient passes through), dgamma, dbeta +=.
template <typename T>
void layerNormBackward(ThreadPool& pool, const T* dy, const T* x, const T* gamma, const T* mean,
                       const T* rstd, int rows, int cols, T* dx, T* dgamma, T* dbeta);

// y = gelu_tanh(x); dx = gelu_tanh'(x) dy (overwritten; dx may alias dy).
template <typename T>
void geluForward(ThreadPool& pool, const T* x, T* y, std::size_t n);
template <typename T>
void geluBackward(ThreadPool& pool, const T* x, const T* dy, T* dx, std::size_t n);

// x[b, t] = wte[ids[b, t]] + wpe[t] for `sequences` rows of `length` tokens.
template <typename T>
void embedForward(ThreadPool& pool, const T* wte, const T* wpe, const int* ids, int sequences,
                  int length, int d, T* x);
// dwte[ids[b, t]] += dx[b, t], dwpe[t] += dx[b, t].
template <typename T>
void embedBackward(ThreadPool& pool, const T* dx, const int* ids, int sequences, int length, int d,
                   T* dwte, T* dwpe);

}  // namespace qkv::train
