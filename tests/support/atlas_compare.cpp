#include "tests/support/atlas_compare.h"

#include <gtest/gtest.h>

namespace qkv::test {

void expectSameAtlas(const HeadAtlas& a, const HeadAtlas& b) {
    ASSERT_EQ(a.scores(), b.scores());
    ASSERT_EQ(a.headCounts(), b.headCounts());
    EXPECT_EQ(a.sequences(), b.sequences());
    for (int l = 0; l < a.layers(); ++l)
        for (int h = 0; h < a.heads(l); ++h)
            for (std::size_t s = 0; s < a.scores().size(); ++s) {
                SCOPED_TRACE("layer " + std::to_string(l) + " head " + std::to_string(h) + " " +
                             a.scores()[s]);
                const ScoreTally& x = a.tally(l, h, static_cast<int>(s));
                const ScoreTally& y = b.tally(l, h, static_cast<int>(s));
                EXPECT_EQ(x.sum, y.sum);
                EXPECT_EQ(x.count, y.count);
                EXPECT_EQ(x.blockSum, y.blockSum);
                EXPECT_EQ(x.blockCount, y.blockCount);
                ASSERT_EQ(x.top.size(), y.top.size());
                for (std::size_t r = 0; r < x.top.size(); ++r) {
                    EXPECT_EQ(x.top[r].value, y.top[r].value);
                    EXPECT_EQ(x.top[r].document, y.top[r].document);
                    EXPECT_EQ(x.top[r].first, y.top[r].first);
                    EXPECT_EQ(x.top[r].query, y.top[r].query);
                }
            }
    ASSERT_EQ(a.exampleSequences().size(), b.exampleSequences().size());
    for (const auto& [key, sequence] : a.exampleSequences()) {
        ASSERT_TRUE(b.exampleSequences().count(key));
        EXPECT_EQ(b.exampleSequences().at(key).ids, sequence.ids);
        EXPECT_EQ(b.exampleSequences().at(key).pieces, sequence.pieces);
    }
}

}  // namespace qkv::test
