// The building blocks under the tokenizers: UTF-8 checks, alignment through normalization,
// added-token matching and the BPE merge loop.
#include <gtest/gtest.h>

#include "core/tokenize/added_tokens.h"
#include "core/tokenize/bpe_merges.h"
#include "core/tokenize/normalized_text.h"
#include "core/tokenize/utf8.h"
#include "core/util/error.h"

namespace qkv::test {
namespace {

std::string originalOf(std::string_view original, const NormalizedText& text, std::size_t begin,
                       std::size_t end) {
    const Span span = text.originalSpan(begin, end);
    return std::string(original.substr(span.begin, span.end - span.begin));
}

TEST(TokenizeParts, Utf8ValidationAndEscaping) {
    EXPECT_NO_THROW(utf8::validate("a\u00e9\u4e2d\U0001F642", "text"));
    EXPECT_THROW(utf8::validate("\xF4\x90\x80\x80", "text"), Error);  // above U+10FFFF
    EXPECT_THROW(utf8::validate("\xE2\x82", "text"), Error);          // truncated
    try {
        utf8::validate("ok\xF0\x9F", "the text");
        FAIL() << "no error";
    } catch (const Error& e) {
        EXPECT_STREQ(e.what(), "the text is not valid UTF-8 (byte offset 2)");
    }
    EXPECT_EQ(utf8::escapeInvalid("a\xE6\x96"), "a<0xE6><0x96>");
    EXPECT_EQ(utf8::escapeInvalid("\xE6\x96\x87"), "\u6587");
    std::size_t begin = 2, end = 3;  // the middle byte of 文 after "a "
    utf8::widenToCharacters("a \u6587!", begin, end);
    EXPECT_EQ(begin, 2u);
    EXPECT_EQ(end, 5u);
}

TEST(TokenizeParts, AlignmentThroughNormalization) {
    const std::string original = "x Caf\u00e9";
    NormalizedText text(std::string_view(original).substr(2), 2);  // "Café" at offset 2
    text.prepend("\u2581");
    EXPECT_EQ(text.originalSpan(0, 3).begin, 2u);  // inserted: empty span where it went
    EXPECT_EQ(text.originalSpan(0, 3).end, 2u);
    text.normalize(NormalizedText::Form::Nfd);  // é -> e + U+0301, both from é
    EXPECT_EQ(text.text(), "\u2581Cafe\u0301");
    EXPECT_EQ(originalOf(original, text, 6, 7), "\u00e9");
    EXPECT_EQ(originalOf(original, text, 3, 4), "C");
    text.replace({{3, 4}}, "KK");
    EXPECT_EQ(text.text(), "\u2581KKafe\u0301");
    EXPECT_EQ(originalOf(original, text, 4, 5), "C");
    EXPECT_EQ(originalOf(original, text, 0, text.size()), "Caf\u00e9");

    NormalizedText turkish("\u0130x", 0);
    turkish.lowercase();
    EXPECT_EQ(turkish.text(), "i\u0307x");
    EXPECT_EQ(turkish.originalSpan(0, 1).end, 2u);  // "i" spans all of İ
}

TEST(TokenizeParts, AddedTokensLeftmostLongest) {
    const AddedTokenMatcher matcher({{"<a>", 1}, {"<a><b>", 2}, {"b>", 3}});
    const std::vector<TextSegment> segments = matcher.split("x<a><b><a>b>");
    ASSERT_EQ(segments.size(), 4u);
    EXPECT_EQ(segments[0].tokenId, -1);
    EXPECT_EQ(segments[1].tokenId, 2);
    EXPECT_EQ(segments[2].tokenId, 1);
    EXPECT_EQ(segments[3].tokenId, 3);
    EXPECT_EQ(segments[3].end, 12u);
    EXPECT_TRUE(AddedTokenMatcher().split("").empty());
}

TEST(TokenizeParts, MergeLoopSkipsStalePairs) {
    Vocabulary vocab;
    int id = 0;
    for (const char* piece : {"a", "b", "c", "ab", "bc", "abc"}) vocab.set(piece, id++);
    // "b c" outranks "a b": once "bc" exists the queued (a, b) candidate is stale.
    const BpeMerges merges({{"b", "c"}, {"a", "b"}, {"a", "bc"}}, vocab, "", "test");
    std::vector<PieceSpan> symbols{{0, 0, 1}, {1, 1, 2}, {2, 2, 3}};
    merges.apply(symbols);
    ASSERT_EQ(symbols.size(), 1u);
    EXPECT_EQ(symbols[0].id, 5);
    EXPECT_EQ(symbols[0].end, 3u);
    // Unknown characters never merge.
    std::vector<PieceSpan> withGap{{0, 0, 1}, {Vocabulary::kMissing, 1, 2}, {1, 2, 3}};
    merges.apply(withGap);
    EXPECT_EQ(withGap.size(), 3u);
}

}  // namespace
}  // namespace qkv::test
