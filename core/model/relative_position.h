#pragma once
// T5's relative position bias: the offset j - i of key j from query i falls in one of a stack's
// buckets (exact for small offsets, logarithmic up to a maximum distance; the encoder's buckets
// tell left from right, the decoder's only look back), and each head has a learned value per
// bucket. Computed on the host as Hugging Face computes it (the logarithm in float32).
#include "core/backend/matrix_view.h"
#include "core/model/attention_trace.h"

namespace qkv {

int relativePositionBucket(int offset, bool bidirectional, int buckets, int maxDistance);

// heads·n_q rows of n_k: row h·n_q + i holds head h's bias of query i for every key. `table` is
// [buckets, heads].
RowMatrixXf relativePositionBias(const MatrixView& table, int heads, int queries, int keys,
                                 bool bidirectional, int maxDistance);

}  // namespace qkv
