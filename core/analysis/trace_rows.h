#pragma once
// What a captured trace's rows say beside the weights' numbers: the share of each query row that
// attention sinks take, and how alike two tokens' keys and values are in one head.
#include <vector>

#include "core/model/attention_trace.h"

namespace qkv {

// What attention sinks take of each query row of a head's probabilities: 1 - sum_j A_ij,
// summed in double; of one row.
std::vector<double> sinkShares(const RowMatrixXf& probabilities);
double sinkShareOfRow(const RowMatrixXf& probabilities, int row);

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
