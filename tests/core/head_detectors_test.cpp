// The head atlas's per-sentence scores on hand-made attention patterns whose values are known:
// TransformerLens's detector patterns cell by cell, pure heads, a uniform head, a signed map.
#include "core/analysis/head_detectors.h"

#include <gtest/gtest.h>

#include <cmath>

#include "core/util/error.h"

namespace qkv {
namespace {

// Every cell (i, j ≤ i) of `ids` in the pattern, as TransformerLens's detection pattern has them.
std::vector<std::pair<int, int>> cells(HeadPattern pattern, const std::vector<int>& ids) {
    std::vector<std::pair<int, int>> out;
    const int n = static_cast<int>(ids.size());
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j)
            if (inPattern(pattern, ids, i, j)) out.emplace_back(i, j);
    return out;
}

using Cells = std::vector<std::pair<int, int>>;

TEST(HeadDetectors, PatternsAreTransformerLensCells) {
    const std::vector<int> ids = {5, 7, 5, 7, 7};
    EXPECT_EQ(cells(HeadPattern::PreviousToken, ids), (Cells{{1, 0}, {2, 1}, {3, 2}, {4, 3}}));
    // An earlier copy of the query's token, never the query itself.
    EXPECT_EQ(cells(HeadPattern::DuplicateToken, ids), (Cells{{2, 0}, {3, 1}, {4, 1}, {4, 3}}));
    // The duplicate pattern shifted one key to the right, its first column zero, lower
    // triangular: the token after an earlier copy, the query itself where its predecessor is a
    // copy (4: ids[3] = ids[4]).
    EXPECT_EQ(cells(HeadPattern::Induction, ids), (Cells{{2, 1}, {3, 2}, {4, 2}, {4, 4}}));
}

// A previous-token head: each query on the token before it, the first on itself (a softmax row
// must put its mass somewhere). TransformerLens's measure counts that row: (n − 1) / n.
TEST(HeadDetectors, APurePreviousTokenHead) {
    const int n = 6;
    RowMatrixXf a = RowMatrixXf::Zero(n, n);
    a(0, 0) = 1;
    for (int i = 1; i < n; ++i) a(i, i - 1) = 1;
    const std::vector<int> ids = {3, 9, 4, 8, 2, 6};
    const HeadSentenceScores s = scoreHeadOnSentence(a, {}, ids);
    EXPECT_DOUBLE_EQ(s.previousToken, 5.0 / 6);
    EXPECT_DOUBLE_EQ(s.self, 1.0 / 6);
    EXPECT_DOUBLE_EQ(s.firstToken, 2.0 / 6);
    EXPECT_DOUBLE_EQ(s.duplicateToken, 0.0);  // no token repeats
    EXPECT_DOUBLE_EQ(s.induction, 0.0);
    EXPECT_DOUBLE_EQ(s.entropy, 0.0);
    EXPECT_DOUBLE_EQ(s.distance, 5.0 / 6);
    EXPECT_FALSE(s.scoreSymmetry.has_value());  // no scores given
}

// Uniform over the causal keys: A_ij = 1/(i + 1). With H_n the harmonic number, previous-token
// (H_n − 1)/n, first-token and self H_n/n, entropy ln(n!)/n, distance (n − 1)/4.
TEST(HeadDetectors, AUniformHeadScoresItsExpectedValues) {
    const int n = 9;
    RowMatrixXf a = RowMatrixXf::Zero(n, n);
    for (int i = 0; i < n; ++i)
        for (int j = 0; j <= i; ++j) a(i, j) = 1.0f / static_cast<float>(i + 1);
    std::vector<int> ids(n);
    for (int i = 0; i < n; ++i) ids[i] = 100 + i;
    double harmonic = 0, logFactorial = 0;
    for (int k = 1; k <= n; ++k) {
        harmonic += 1.0 / k;
        logFactorial += std::log(static_cast<double>(k));
    }
    const HeadSentenceScores s = scoreHeadOnSentence(a, {}, ids);
    // float32 entries 1/(i + 1): relative rounding of 6e-8 each.
    EXPECT_NEAR(s.previousToken, (harmonic - 1) / n, 1e-7);
    EXPECT_NEAR(s.firstToken, harmonic / n, 1e-7);
    EXPECT_NEAR(s.self, harmonic / n, 1e-7);
    EXPECT_NEAR(s.entropy, logFactorial / n, 1e-6);
    EXPECT_NEAR(s.distance, (n - 1) / 4.0, 1e-6);
}

// TransformerLens's standard test, a random sequence repeated: an ideal induction head attends
// from each token of the repeat to the one after its first occurrence, a duplicate head to the
// occurrence itself; the first half has no earlier copy and attends to itself.
TEST(HeadDetectors, InductionAndDuplicateHeadsOnARepeatedSequence) {
    const std::vector<int> ids = {11, 42, 7, 30, 11, 42, 7, 30};
    const int n = 8, half = 4;
    RowMatrixXf induction = RowMatrixXf::Zero(n, n), duplicate = RowMatrixXf::Zero(n, n);
    for (int i = 0; i < n; ++i) {
        induction(i, i < half ? i : i - half + 1) = 1;
        duplicate(i, i < half ? i : i - half) = 1;
    }
    const HeadSentenceScores s = scoreHeadOnSentence(induction, {}, ids);
    EXPECT_DOUBLE_EQ(s.induction, 0.5);
    EXPECT_DOUBLE_EQ(s.duplicateToken, 0.0);
    const HeadSentenceScores d = scoreHeadOnSentence(duplicate, {}, ids);
    EXPECT_DOUBLE_EQ(d.duplicateToken, 0.5);
    EXPECT_DOUBLE_EQ(d.induction, 0.0);
    EXPECT_DOUBLE_EQ(d.distance, 2.0);  // half the rows 0, half 4 tokens back
}

// An implicit map weighs by |A_ij|; its symmetry is its own map's.
TEST(HeadDetectors, ASignedMapWeighsByMagnitude) {
    RowMatrixXf m(2, 2);
    m << 1, 0, -3, 1;
    const HeadSentenceScores s = scoreHeadOnSentence(m, m, {4, 5});
    EXPECT_DOUBLE_EQ(s.previousToken, 3.0 / 5);
    EXPECT_DOUBLE_EQ(s.self, 2.0 / 5);
    ASSERT_TRUE(s.scoreSymmetry.has_value());
    // M_s = [[1, -1.5], [-1.5, 1]], M_a = [[0, 1.5], [-1.5, 0]]: (6.5 − 4.5) / 11.
    EXPECT_DOUBLE_EQ(*s.scoreSymmetry, 2.0 / 11);
    RowMatrixXf symmetric(2, 2);
    symmetric << 2, 1, 1, 3;
    EXPECT_DOUBLE_EQ(*scoreHeadOnSentence(m, symmetric, {4, 5}).scoreSymmetry, 1.0);
}

// Each row score's peak: the row (from kFirstExampleQuery) where its own value is largest, the
// earliest of equals. Rows 0 to 3 put all their mass on themselves and are no examples.
TEST(HeadDetectors, PeaksAreTheBestRowsFromTheFifthQuery) {
    ASSERT_EQ(kFirstExampleQuery, 4);
    RowMatrixXf a = RowMatrixXf::Zero(7, 7);
    for (int i = 0; i < 4; ++i) a(i, i) = 1;
    a.row(4).head(5) << 0.1f, 0.1f, 0.1f, 0.1f, 0.6f;
    a.row(5).head(6) << 0.2f, 0, 0, 0.2f, 0.6f, 0;
    a.row(6) << 0.1f, 0.1f, 0.1f, 0.1f, 0.1f, 0.1f, 0.4f;
    const HeadSentenceScores s = scoreHeadOnSentence(a, {}, {1, 2, 3, 4, 5, 6, 7});
    const auto peak = [&](HeadScore score) { return s.peaks[static_cast<int>(score)]; };
    EXPECT_EQ(peak(HeadScore::Self).query, 4);
    EXPECT_NEAR(peak(HeadScore::Self).value, 0.6, 1e-7);
    EXPECT_EQ(peak(HeadScore::PreviousToken).query, 5);
    EXPECT_NEAR(peak(HeadScore::PreviousToken).value, 0.6, 1e-7);
    EXPECT_EQ(peak(HeadScore::FirstToken).query, 5);
    // Row 6: -6 · 0.1 ln 0.1 - 0.4 ln 0.4 = 1.748 against 1.228 and 0.950.
    EXPECT_EQ(peak(HeadScore::Entropy).query, 6);
    EXPECT_NEAR(peak(HeadScore::Entropy).value, -0.6 * std::log(0.1) - 0.4 * std::log(0.4), 1e-6);
    EXPECT_EQ(peak(HeadScore::Distance).query, 6);  // 2.1 tokens against 1.0 and 2.0
    EXPECT_NEAR(peak(HeadScore::Distance).value, 2.1, 1e-6);
    EXPECT_EQ(peak(HeadScore::Induction).query, 4);  // no induction cell: 0 from the first row
    EXPECT_EQ(peak(HeadScore::Induction).value, 0.0);
    // A sentence of four tokens has no example row.
    EXPECT_EQ(scoreHeadOnSentence(RowMatrixXf::Identity(4, 4), {}, {1, 2, 3, 4}).peaks[0].query,
              -1);
}

// A configuration's change of a row is the total variation of the normalised |rows|.
TEST(HeadDetectors, RowChangeIsTotalVariation) {
    RowMatrixXf learned(2, 2), other(2, 2);
    learned << 1, 0, 0.25, 0.75;
    other << 1, 0, -1.5, 0.5;  // |row 1| / 2 = (0.75, 0.25)
    const RowChange change = rowChange(learned, other);
    EXPECT_DOUBLE_EQ(change.mean, 0.25);  // rows 0 and 0.5
    EXPECT_EQ(change.peak.query, 1);
    EXPECT_DOUBLE_EQ(change.peak.value, 0.5);
    EXPECT_THROW(rowChange(learned, RowMatrixXf::Zero(2, 3)), Error);
}

TEST(HeadDetectors, AMapOfAnotherShapeIsRefused) {
    EXPECT_THROW(scoreHeadOnSentence(RowMatrixXf::Zero(2, 3), {}, {1, 2}), Error);
    EXPECT_THROW(detectorScore(RowMatrixXf::Zero(3, 3), {1, 2}, HeadPattern::Induction), Error);
    EXPECT_DOUBLE_EQ(detectorScore(RowMatrixXf::Zero(2, 2), {1, 2}, HeadPattern::Induction), 0);
}

}  // namespace
}  // namespace qkv
