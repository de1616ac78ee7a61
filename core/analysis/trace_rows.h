#pragma once
// What a captured trace's rows say beside the weights' numbers: the share of each query row that
// attention sinks take, and how alike two tokens' keys and values are in one head.
#include <optional>
#include <vector>

#include "core/model/attention_trace.h"

namespace qkv {

// What attention sinks take of each query row of a head's probabilities: 1 - sum_j A_ij,
// summed in double; of one row.
std::vector<double> sinkShares(const RowMatrixXf& probabilities);
double sinkShareOfRow(const RowMatrixXf& probabilities, int row);

// Where a head's weights over the keys lie, for softmax probabilities and implicit maps alike
// (whose entries may be negative: each weighs by |A_ij|), over the rows whose weights are not
// all zero, of a square map (self-attention):
//   mean distance: the mean over rows i of Σ_j |A_ij|·|i − j| / Σ_j |A_ij|, in tokens;
//   self share: the mean over rows i of |A_ii| / Σ_j |A_ij|.
// Empty for a map that is not square or has no such row.
struct AttentionReach {
    double meanDistance = 0;
    double selfShare = 0;
};
std::optional<AttentionReach> attentionReach(const RowMatrixXf& map);

// For a token pair (i, j) in one head: cosine of their keys and of their values (the
// "neural network" / "social network" case: keys can agree while values differ); 0 for a zero
// vector. i and j index the keys' tokens (the source's in cross-attention). Throws qkv::Error
// outside the trace.
struct TokenPairSimilarity {
    double keyCosine = 0;
    double valueCosine = 0;
};
TokenPairSimilarity tokenPairSimilarity(const AttentionTrace& trace, int layer, int head, int i,
                                        int j);

}  // namespace qkv
