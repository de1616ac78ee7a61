// Token labels as a person sees them, and padding by display width (columns), not bytes.
#include "core/tokenize/token_label.h"

#include <gtest/gtest.h>

namespace qkv {
namespace {

TEST(TokenLabel, MarksLineBreaksAndBlankTokens) {
    EXPECT_EQ(tokenLabelOf(" gave"), "gave");
    EXPECT_EQ(tokenLabelOf("\n"), "↵");
    EXPECT_EQ(tokenLabelOf("a\tb"), "a⇥b");
    EXPECT_EQ(tokenLabelOf("   "), "␣");
    EXPECT_EQ(tokenLabel(nullptr, 5, "Ġgave"), "Ġgave");  // no tokenizer: the piece
}

TEST(TokenLabel, DisplayWidthCountsColumns) {
    EXPECT_EQ(displayWidth("cat"), 3);
    EXPECT_EQ(displayWidth("café"), 4);     // é is two bytes, one column
    EXPECT_EQ(displayWidth("日本"), 4);     // wide characters take two columns
    EXPECT_EQ(displayWidth("e\u0301"), 1);  // a combining accent takes none
    EXPECT_EQ(rightAligned("café", 6), "  café");
    EXPECT_EQ(rightAligned("日本語", 5), " 日本");  // cut at whole characters, then padded
    EXPECT_EQ(displayWidth(rightAligned("naïve—", 8)), 8);
}

}  // namespace
}  // namespace qkv
