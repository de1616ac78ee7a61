#pragma once
// What one head does on one sentence, in the numbers the head atlas keeps per document
// (docs/definitions.md, "Head detectors"): TransformerLens's detector scores — previous-token,
// duplicate-token and induction, each its "mul" measure: the head's attention mass on the
// pattern's cells over its total mass — beside the first-token (sink) and self shares, the mean
// entropy and distance of its rows, and the symmetry and directionality of its scores; and where
// in the sentence each peaks (the atlas's examples).
#include <array>
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

// The scores, in the atlas's order. The first seven are means over the sentence's rows (each row
// has a value of its own); the last two are the whole score matrix's.
enum class HeadScore {
    PreviousToken,
    DuplicateToken,
    Induction,
    FirstToken,
    Self,
    Entropy,
    Distance,
    ScoreSymmetry,
    Directionality,
};
constexpr int kHeadScores = 9;
constexpr int kRowScores = 7;
// "previous_token", "duplicate_token", "induction", "first_token", "self", "entropy",
// "distance", "score_symmetry", "directionality": the names the command line and the atlas
// file use.
const char* headScoreName(HeadScore score);

// A row is an example from this query on: a causal row with fewer keys to choose among (row 1
// has two) tops every share by having no other place to put its mass.
constexpr int kFirstExampleQuery = 4;

// Where a score is largest in a sentence: the query row and its value there.
struct ScorePeak {
    int query = -1;  // -1: no row qualifies
    double value = 0;
};

struct HeadSentenceScores {
    double previousToken = 0, duplicateToken = 0, induction = 0;
    double firstToken = 0;  // mass on key 0 over the whole mass
    double self = 0;        // mass on the diagonal over the whole mass
    double entropy = 0;     // mean over rows of the entropy of |A_i·| / Σ|A_i·|, in nats
    double distance = 0;    // mean over rows of Σ_j |A_ij| |i − j| / Σ_j |A_ij|, in tokens
    // s(S) and the directionality of the raw scores (matrix_metrics.h), where they were
    // captured; an implicit map's are its own.
    std::optional<double> scoreSymmetry, directionality;
    // Per row score (HeadScore order): the row where its own value is largest (the earliest of
    // equals), among the rows from kFirstExampleQuery on that have mass; none in a shorter
    // sentence.
    std::array<ScorePeak, kRowScores> peaks;

    std::optional<double> value(HeadScore score) const;
};

// The scores of one head's square map (probabilities, or an implicit map) on a sentence of
// `ids`; symmetry and directionality those of `form`: the raw scores where they were captured,
// an implicit map itself (which has no scores before a softmax), or empty (left out). Throws
// qkv::Error for a map that is not square over the ids.
HeadSentenceScores scoreHeadOnSentence(const RowMatrixXf& map, const RowMatrixXf& form,
                                       const std::vector<int>& ids);

// How far a configuration moves a head's rows: per row the total variation ½ Σ_j |p_j − q_j|
// between |A_i·| / Σ|A_i·| of the learned map and of the other (a softmax row is its own
// normalisation), over the rows where both have mass: their mean, and the row where it peaks
// (query 0 included: a row may move there too). Throws qkv::Error for maps of different shapes.
struct RowChange {
    double mean = 0;
    ScorePeak peak;
};
RowChange rowChange(const RowMatrixXf& learned, const RowMatrixXf& other);

}  // namespace qkv
