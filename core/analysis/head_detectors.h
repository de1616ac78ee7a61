#pragma once
// What one head does on one sentence, in the numbers the head atlas keeps per document
// (docs/definitions.md, "Head detectors"): TransformerLens's detector scores — previous-token,
// duplicate-token and induction, each its "mul" measure: the head's attention mass on the
// pattern's cells over its total mass — beside the first-token (sink) and self shares, the mean
// entropy and distance of its rows, and the symmetry and directionality of its scores.
#include <optional>
#include <vector>

#include "core/model/attention_trace.h"

namespace qkv {

// The cells (query i, key j ≤ i) a detector looks at, from the sentence's ids (TransformerLens's
// get_*_detection_pattern): the previous token (j = i − 1); an earlier copy of the query's token
// (ids[j] = ids[i], j < i); the token after an earlier copy of it (ids[j − 1] = ids[i], j ≤ i).
enum class HeadPattern { PreviousToken, DuplicateToken, Induction };
bool inPattern(HeadPattern pattern, const std::vector<int>& ids, int query, int key);

// A square map's mass on the pattern over its whole mass, by |A| (an implicit map's entries may
// be negative; a softmax's are not); 0 for a map without mass.
double detectorScore(const RowMatrixXf& map, const std::vector<int>& ids, HeadPattern pattern);

struct HeadSentenceScores {
    double previousToken = 0, duplicateToken = 0, induction = 0;
    double firstToken = 0;  // mass on key 0 over the whole mass
    double self = 0;        // mass on the diagonal over the whole mass
    double entropy = 0;     // mean over rows of the entropy of |A_i·| / Σ|A_i·|, in nats
    double distance = 0;    // mean over rows of Σ_j |A_ij| (i − j) / Σ_j |A_ij|, in tokens
    // s(S) and the directionality of the raw scores (matrix_metrics.h), where they were
    // captured; an implicit map's are its own.
    std::optional<double> scoreSymmetry, directionality;
};

// The scores of one head's square map (probabilities, or an implicit map) on a sentence of
// `ids`; symmetry and directionality those of `form`: the raw scores where they were captured,
// an implicit map itself (which has no scores before a softmax), or empty (left out). Throws
// qkv::Error for a map that is not square over the ids.
HeadSentenceScores scoreHeadOnSentence(const RowMatrixXf& map, const RowMatrixXf& form,
                                       const std::vector<int>& ids);

}  // namespace qkv
