// GPT-2 byte-level BPE: the pre-tokenizer regex, byte-level characters and merge order.
// Expected ids for the Hub vocabulary come from transformers' slow GPT2Tokenizer algorithm
// (regex module + rank loop), checked by hand against vocab.json and merges.txt.
#include <gtest/gtest.h>

#include "core/tokenize/tokenizer.h"
#include "core/util/error.h"
#include "tests/core/tokenize_test_files.h"
#include "tests/support/shared_assets.h"

namespace qkv::test {
namespace {

struct Case {
    std::string text;
    std::vector<int> ids;
    std::vector<std::string> surfaces;  // text.substr of each token's span
};

TEST(TokenizeGpt2, HubVocabularyTrickyText) {
    QKV_REQUIRE_SHARED(shared);
    const auto tokenizer = loadTokenizer(shared / "tokenizers" / "gpt2");
    const std::vector<Case> cases = {
        {"don't", {9099, 470}, {"don", "'t"}},
        {"I'll", {40, 1183}, {"I", "'ll"}},
        {"12345", {10163, 2231}, {"123", "45"}},
        // \s+(?!\S) leaves the last space to join the word: "a", "  ", " b".
        {"a   b", {64, 220, 220, 275}, {"a", " ", " ", " b"}},
        {"trailing  ", {9535, 4386, 220, 220}, {"tra", "iling", " ", " "}},
        {"line1\nline2\n\n",
         {1370, 16, 198, 1370, 17, 628},
         {"line", "1", "\n", "line", "2", "\n\n"}},
        {"emoji \U0001F642", {368, 31370, 32485}, {"em", "oji", " \U0001F642"}},
        // "é" is two bytes; "Ã©" is one token holding both.
        {"Caf\u00e9 na\u00efve", {34, 1878, 2634, 41492}, {"C", "af", "\u00e9", " na\u00efve"}},
        // 文 is E6 96 87: one token has two of its bytes, the next the third; both span 文.
        {"\u4e2d\u6587", {40792, 23877, 229}, {"\u4e2d", "\u6587", "\u6587"}},
        {"!!!?", {10185, 30}, {"!!!", "?"}},
        {"Hello, World!", {15496, 11, 2159, 0}, {"Hello", ",", " World", "!"}},
        // Contractions are case-sensitive: "'RE" is punctuation then letters.
        {"They'RE here", {2990, 6, 2200, 994}, {"They", "'", "RE", " here"}},
        // U+180E is not White_Space (PCRE2's \s would say it is): one symbol piece, 3 bytes.
        {"x\u180ey", {87, 157, 254, 236, 88}, {"x", "\u180e", "\u180e", "\u180e", "y"}},
        {"<|endoftext|>Hi", {50256, 17250}, {"<|endoftext|>", "Hi"}},
    };
    for (const Case& c : cases) {
        SCOPED_TRACE(c.text);
        const std::vector<Token> tokens = tokenizer->encode(c.text);
        EXPECT_EQ(idsOf(tokens), c.ids);
        EXPECT_EQ(surfacesOf(c.text, tokens), c.surfaces);
        for (const Token& t : tokens) EXPECT_FALSE(t.special);
    }
    EXPECT_EQ(tokenizer->displayText(198), "\n");
    EXPECT_EQ(tokenizer->displayText(23877), "<0xE6><0x96>");  // partial UTF-8 stays readable
    EXPECT_EQ(tokenizer->displayText(229), "<0x87>");
    EXPECT_EQ(tokenizer->displayText(32485), " \U0001F642");
    EXPECT_TRUE(tokenizer->encode("").empty());
}

// tests/data/tokenizers/gpt2-tiny: vocab a b Ġ aa aaaa ab Ġa Ġab Ã © <|endoftext|>,
// merges (by rank) "a a", "aa aa", "a b", "Ġ a", "Ġa b".
class TokenizeTinyGpt2 : public ::testing::Test {
  protected:
    void SetUp() override {
        m_tokenizer = loadTokenizer(testDataDir() / "tokenizers" / "gpt2-tiny");
    }
    std::vector<int> ids(const std::string& text) const { return idsOf(m_tokenizer->encode(text)); }
    std::unique_ptr<Tokenizer> m_tokenizer;
};

TEST_F(TokenizeTinyGpt2, MergesLowestRankFirst) {
    EXPECT_EQ(ids("aaaaa"), (std::vector<int>{4, 0}));
    EXPECT_EQ(ids("aab"), (std::vector<int>{3, 1}));
    // "a b" (rank 2) beats the leftmost pair "Ġ a" (rank 3), so "Ġa b" never applies.
    EXPECT_EQ(ids(" ab"), (std::vector<int>{2, 5}));
    EXPECT_EQ(ids(" a"), (std::vector<int>{6}));
}

TEST_F(TokenizeTinyGpt2, UnknownBytesBecomeEndOfText) {
    const std::vector<Token> tokens = m_tokenizer->encode("ac");
    EXPECT_EQ(idsOf(tokens), (std::vector<int>{0, 10}));
    EXPECT_EQ(surfacesOf("ac", tokens), (std::vector<std::string>{"a", "c"}));
}

TEST_F(TokenizeTinyGpt2, PartialCharactersSpanTheCharacter) {
    const std::string text = "\u00e9";  // C3 A9: two byte-level tokens
    const std::vector<Token> tokens = m_tokenizer->encode(text);
    EXPECT_EQ(idsOf(tokens), (std::vector<int>{8, 9}));
    EXPECT_EQ(surfacesOf(text, tokens), (std::vector<std::string>{text, text}));
    EXPECT_EQ(m_tokenizer->displayText(8), "<0xC3>");
    EXPECT_EQ(m_tokenizer->displayText(2), " ");
    EXPECT_EQ(m_tokenizer->piece(7), "Ġab");
    EXPECT_EQ(m_tokenizer->vocabSize(), 11);
    EXPECT_THROW(m_tokenizer->piece(11), Error);
    EXPECT_THROW(m_tokenizer->displayText(-1), Error);
}

TEST_F(TokenizeTinyGpt2, MegabyteWordIsLinear) {
    // One 1 MB regex match: the heap-based merge loop handles it in well under a second.
    const std::vector<Token> tokens = m_tokenizer->encode(std::string(1 << 20, 'a'));
    ASSERT_EQ(tokens.size(), (1u << 20) / 4);
    EXPECT_EQ(tokens.back().id, 4);
    EXPECT_EQ(tokens.back().end, 1u << 20);
}

TEST_F(TokenizeTinyGpt2, InvalidUtf8NamesTheOffset) {
    try {
        m_tokenizer->encode("ab\xC3(");
        FAIL() << "no error";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("byte offset 2"), std::string::npos) << e.what();
    }
    EXPECT_THROW(m_tokenizer->encode("\xED\xA0\x80"), Error);  // a surrogate
    EXPECT_THROW(m_tokenizer->encode("\xC0\xAF"), Error);      // overlong '/'
}

TEST(TokenizeGpt2, ThreeTokenVocabularyWithoutMerges) {
    QKV_REQUIRE_SHARED(shared);
    const auto tokenizer = loadTokenizer(shared / "models" / "gpt-nano-sort");
    EXPECT_EQ(tokenizer->vocabSize(), 3);
    EXPECT_EQ(idsOf(tokenizer->encode("2101")), (std::vector<int>{2, 1, 0, 1}));
    // Without "<|endoftext|>" a character outside the vocabulary is an error, not a guess.
    try {
        tokenizer->encode("12 3");
        FAIL() << "no error";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("byte offset 2"), std::string::npos) << e.what();
    }
}

}  // namespace
}  // namespace qkv::test
