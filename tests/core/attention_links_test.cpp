// The head view's lines: the strongest links of an attention matrix, and how many were left out.
#include "core/analysis/attention_links.h"

#include <gtest/gtest.h>

namespace qkv {
namespace {

TEST(AttentionLinks, StrongestFirstAndTheRestCounted) {
    RowMatrixXf a(3, 3);
    a << 1.0f, 0.0f, 0.0f,  //
        0.3f, 0.7f, 0.0f,   //
        0.2f, 0.3f, 0.5f;
    const AttentionLinks all = strongestLinks(a, 100, 0.0f);
    ASSERT_EQ(all.links.size(), 6u);  // the zeros (masked cells) are no lines
    EXPECT_EQ(all.omitted, 0u);
    EXPECT_EQ(all.links.front().weight, 1.0f);
    EXPECT_EQ(all.links[2].query, 2);  // 0.5
    // Ties keep the lower query first: (1, 0) and (2, 1) both weigh 0.3.
    EXPECT_EQ(all.links[3].query, 1);
    EXPECT_EQ(all.links[4].query, 2);
    const AttentionLinks three = strongestLinks(a, 3, 0.0f);
    ASSERT_EQ(three.links.size(), 3u);
    EXPECT_EQ(three.omitted, 3u);
    EXPECT_EQ(three.links.back().weight, 0.5f);
    EXPECT_EQ(strongestLinks(a, 100, 0.4f).links.size(), 3u);
}

// An implicit map's negative entries are links by their size, keeping their sign.
TEST(AttentionLinks, NegativeEntriesRankByTheirSize) {
    RowMatrixXf a(2, 2);
    a << 0.2f, 0.0f,  //
        -0.9f, 0.5f;
    const AttentionLinks all = strongestLinks(a, 100, 0.1f);
    ASSERT_EQ(all.links.size(), 3u);
    EXPECT_EQ(all.links.front().weight, -0.9f);
    EXPECT_EQ(all.links[1].weight, 0.5f);
    EXPECT_EQ(strongestLinks(a, 100, 0.6f).links.size(), 1u);
}

}  // namespace
}  // namespace qkv
