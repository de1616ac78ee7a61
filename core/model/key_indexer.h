#pragma once
// DeepSeek sparse attention's lightning indexer (DeepSeek-V3.2, GLM-5: Architecture::keyIndexer).
// Per query i and causal key j it scores
//   s_ij = Σ_h w_ih · relu(q_ih · k_j / √headDim),   w_i = W_w x_i / √heads,
// with index queries q_ih = W_q c_i from the normed query latent c_i of latent attention, one
// index key k_j = LayerNorm(W_k x_j) per token, both rotated on their first rotary dims; the
// attention then sees only each query's topK best keys (the others get no weight at all).
// Scores are computed on the host in float32, as transformers computes them.
#include <memory>
#include <vector>

#include "core/model/architecture.h"
#include "core/model/attention_trace.h"
#include "core/model/device_model.h"

namespace qkv {

// Added to the scores of the keys a query does not keep: the softmax gives them exactly zero,
// as transformers' finfo.min does, while staying finite for every backend's arithmetic.
constexpr float kUnselectedKeyBias = -1e30f;

struct KeySelection {
    std::vector<std::vector<int>> keys;  // per query, its kept keys in increasing order
    RowMatrixXf scores;                  // n x n, the indexer's scores; zero above the diagonal
};

// The indexer of a layer (w's index projections) over the n rows of x, the attention's input at
// positions 0..n-1, given the same rows' normed query latent.
KeySelection selectKeys(Backend& be, const Architecture& c, const DeviceLatentAttention& w,
                        const Tensor& x, const Tensor& queryLatent);

// Each row's k highest scores among its causal keys (0..row), in increasing key order; a row with
// at most k causal keys keeps them all. Equal scores go to the earlier key (transformers' top-k
// leaves their order unspecified).
std::vector<std::vector<int>> topKeys(const RowMatrixXf& scores, int k);

// The n x n bias (one shared by every head, AttentionOptions::positionBias) that keeps only the
// selected keys: 0 on them, kUnselectedKeyBias elsewhere.
std::unique_ptr<Tensor> selectionBias(Backend& be, const std::vector<std::vector<int>>& keys);

}  // namespace qkv
