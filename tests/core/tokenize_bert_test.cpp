// BERT WordPiece: BasicTokenizer cleaning, CJK, lower-casing, accents and punctuation, then
// greedy longest-match WordPiece. Expected pieces for bert-base-uncased were derived by hand from
// its vocab.txt with the algorithm of transformers' BertTokenizer (e.g. "12345": "1234" is not
// in the vocabulary, "123" is, then "##45").
#include <gtest/gtest.h>

#include "core/tokenize/tokenizer.h"
#include "core/util/error.h"
#include "tests/core/tokenize_test_files.h"
#include "tests/support/shared_assets.h"

namespace qkv::test {
namespace {

struct Case {
    std::string text;
    std::vector<std::string> pieces;    // without [CLS] and [SEP]
    std::vector<std::string> surfaces;  // text.substr of each token's span
};

TEST(TokenizeBert, UncasedTrickyText) {
    QKV_REQUIRE_SHARED(shared);
    const auto tokenizer = loadTokenizer(shared / "tokenizers" / "bert-base-uncased");
    const std::vector<Case> cases = {
        {"don't", {"don", "'", "t"}, {"don", "'", "t"}},
        {"I'll", {"i", "'", "ll"}, {"I", "'", "ll"}},
        {"12345", {"123", "##45"}, {"123", "45"}},
        {"a   b", {"a", "b"}, {"a", "b"}},
        // Lower-cased and accents stripped; spans cover the original accented letters.
        {"Caf\u00e9 na\u00efve", {"cafe", "naive"}, {"Caf\u00e9", "na\u00efve"}},
        {"Cafe\u0301", {"cafe"}, {"Cafe\u0301"}},
        {"\u4e2d\u6587", {"\u4e2d", "\u6587"}, {"\u4e2d", "\u6587"}},
        {"!!!?", {"!", "!", "!", "?"}, {"!", "!", "!", "?"}},
        {"Hello, World!", {"hello", ",", "world", "!"}, {"Hello", ",", "World", "!"}},
        {"emoji \U0001F642", {"em", "##oj", "##i", "[UNK]"}, {"em", "oj", "i", "\U0001F642"}},
        // ASCII symbols count as punctuation; control characters, NUL and U+FFFD vanish.
        {"$5^x", {"$", "5", "^", "x"}, {"$", "5", "^", "x"}},
        {"\ta\x01"
         "b\xEF\xBF\xBD"
         "c\u00a0d",
         {"abc", "d"},
         {"a\x01"
          "b\xEF\xBF\xBD"
          "c",
          "d"}},
        // Special tokens typed in the text stay whole (case-sensitive).
        {"The [MASK] was [mask].",
         {"the", "[MASK]", "was", "[", "mask", "]", "."},
         {"The", "[MASK]", "was", "[", "mask", "]", "."}},
        {"\u0130stanbul", {"istanbul"}, {"\u0130stanbul"}},
        {"\u039f\u0394\u039f\u03a3",
         {"\u03bf", "##\u03b4", "##\u03bf", "##\u03c3"},
         {"\u039f", "\u0394", "\u039f", "\u03a3"}},
        {"unaffable", {"una", "##ffa", "##ble"}, {"una", "ffa", "ble"}},
    };
    for (const Case& c : cases) {
        SCOPED_TRACE(c.text);
        std::vector<Token> tokens = tokenizer->encode(c.text);
        ASSERT_GE(tokens.size(), 2u);
        EXPECT_EQ(tokens.front().piece, "[CLS]");
        EXPECT_EQ(tokens.back().piece, "[SEP]");
        tokens = std::vector<Token>(tokens.begin() + 1, tokens.end() - 1);
        EXPECT_EQ(piecesOf(tokens), c.pieces);
        EXPECT_EQ(surfacesOf(c.text, tokens), c.surfaces);
    }
    EXPECT_EQ(idsOf(tokenizer->encode("12345")), (std::vector<int>{101, 13138, 19961, 102}));
    EXPECT_EQ(tokenizer->displayText(19961), "45");
    EXPECT_EQ(tokenizer->displayText(101), "[CLS]");
}

TEST(TokenizeBert, EmptyTextIsJustTheSpecials) {
    QKV_REQUIRE_SHARED(shared);
    const auto tokenizer = loadTokenizer(shared / "tokenizers" / "bert-base-uncased");
    for (const std::string& text :
         {std::string(), std::string("   "), std::string("\u2028"), std::string(1, '\0')}) {
        const std::vector<Token> tokens = tokenizer->encode(text);
        EXPECT_EQ(idsOf(tokens), (std::vector<int>{101, 102}));
        EXPECT_TRUE(tokens[0].special && tokens[1].special);
    }
}

// tests/data/tokenizers/bert-cased-tiny: do_lower_case false; vocab [PAD] [UNK] [CLS] [SEP]
// [MASK] Hello , ! world Café a ##a 中 ##s.
class TokenizeCasedBert : public ::testing::Test {
  protected:
    void SetUp() override {
        m_tokenizer = loadTokenizer(testDataDir() / "tokenizers" / "bert-cased-tiny");
    }
    std::unique_ptr<Tokenizer> m_tokenizer;
};

TEST_F(TokenizeCasedBert, KeepsCaseAndAccents) {
    const std::string text = "Hello, World!";
    const std::vector<Token> tokens = m_tokenizer->encode(text);
    EXPECT_EQ(piecesOf(tokens),
              (std::vector<std::string>{"[CLS]", "Hello", ",", "[UNK]", "!", "[SEP]"}));
    EXPECT_EQ(surfacesOf(text, tokens),
              (std::vector<std::string>{"", "Hello", ",", "World", "!", ""}));
}

TEST_F(TokenizeCasedBert, ComposesToNfc) {
    const std::string decomposed = "Cafe\u0301";  // e + combining acute
    const std::vector<Token> tokens = m_tokenizer->encode(decomposed);
    EXPECT_EQ(idsOf(tokens), (std::vector<int>{2, 9, 3}));
    EXPECT_EQ(tokens[1].begin, 0u);
    EXPECT_EQ(tokens[1].end, decomposed.size());
}

TEST_F(TokenizeCasedBert, WordPieceLimitsAndUnknowns) {
    // 100 characters: "a" then 99 "##a"; 101 characters: one [UNK] for the whole word.
    EXPECT_EQ(m_tokenizer->encode(std::string(100, 'a')).size(), 102u);
    const std::string longWord(101, 'a');
    const std::vector<Token> tokens = m_tokenizer->encode(longWord);
    EXPECT_EQ(piecesOf(tokens), (std::vector<std::string>{"[CLS]", "[UNK]", "[SEP]"}));
    EXPECT_EQ(tokens[1].end - tokens[1].begin, 101u);
    // CJK ideographs become words of their own, so "s" after 中 is a word start, not "##s".
    EXPECT_EQ(piecesOf(m_tokenizer->encode("\u4e2ds")),
              (std::vector<std::string>{"[CLS]", "\u4e2d", "[UNK]", "[SEP]"}));
    EXPECT_EQ(piecesOf(m_tokenizer->encode("[MASK]a")),
              (std::vector<std::string>{"[CLS]", "[MASK]", "a", "[SEP]"}));
}

TEST_F(TokenizeCasedBert, LongInputIsLinear) {
    std::string text;
    for (int i = 0; i < 100000; ++i) text += "Hello, world! ";
    EXPECT_EQ(m_tokenizer->encode(text).size(), 4u * 100000 + 2);
    EXPECT_EQ(m_tokenizer->encode(std::string(1 << 20, 'a')).size(), 3u);  // one [UNK]
}

TEST_F(TokenizeCasedBert, InvalidUtf8NamesTheOffset) {
    try {
        m_tokenizer->encode("Hello\xFF");
        FAIL() << "no error";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("byte offset 5"), std::string::npos) << e.what();
    }
}

}  // namespace
}  // namespace qkv::test
