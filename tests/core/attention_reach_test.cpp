// Where a head's attention lies (attentionReach), on hand-made maps whose mean distance and self
// share are known: a previous-token head, a uniform causal head, and a signed implicit map.
#include <gtest/gtest.h>

#include "core/analysis/trace_rows.h"

namespace qkv {
namespace {

TEST(AttentionReach, APreviousTokenHeadIsOneTokenAwayBarItsFirstRow) {
    RowMatrixXf a = RowMatrixXf::Zero(5, 5);
    a(0, 0) = 1;  // the first token has only itself
    for (int i = 1; i < 5; ++i) a(i, i - 1) = 1;
    const auto reach = attentionReach(a);
    ASSERT_TRUE(reach);
    EXPECT_DOUBLE_EQ(reach->meanDistance, 4.0 / 5.0);
    EXPECT_DOUBLE_EQ(reach->selfShare, 1.0 / 5.0);
}

TEST(AttentionReach, AUniformCausalHeadIsHalfItsContextAway) {
    RowMatrixXf a = RowMatrixXf::Zero(4, 4);
    for (int i = 0; i < 4; ++i) a.row(i).head(i + 1).setConstant(1.0f / (i + 1));
    const auto reach = attentionReach(a);
    ASSERT_TRUE(reach);
    // Row i's mean distance is i/2 and its self share 1/(i+1).
    EXPECT_NEAR(reach->meanDistance, (0 + 0.5 + 1 + 1.5) / 4, 1e-7);
    EXPECT_NEAR(reach->selfShare, (1 + 1.0 / 2 + 1.0 / 3 + 1.0 / 4) / 4, 1e-7);
}

TEST(AttentionReach, AnImplicitMapWeighsByMagnitudeAndSkipsEmptyRows) {
    RowMatrixXf a = RowMatrixXf::Zero(3, 3);
    a(0, 0) = 0.5f;
    a(1, 0) = -1.0f;  // negative entries count by their size
    a(1, 1) = 1.0f;   // row 2 is all zero: no weights to place
    const auto reach = attentionReach(a);
    ASSERT_TRUE(reach);
    EXPECT_DOUBLE_EQ(reach->meanDistance, (0 + 0.5) / 2);
    EXPECT_DOUBLE_EQ(reach->selfShare, (1 + 0.5) / 2);
    EXPECT_FALSE(attentionReach(RowMatrixXf::Zero(3, 3)));
    EXPECT_FALSE(attentionReach(RowMatrixXf::Ones(2, 3)));  // cross-attention: no self
}

}  // namespace
}  // namespace qkv
