// tokenizer.json BPE: SentencePiece-style byte fallback (stories260K), byte-level with a Split
// regex (Llama 3 style), Metaspace, normalizers, added tokens and post-processors. Expected
// stories260K ids agree with llama2.c's encode() over tok512.bin, the reference's own tokenizer.
#include <gtest/gtest.h>

#include "core/tokenize/tokenizer.h"
#include "core/util/error.h"
#include "tests/core/tokenize_test_files.h"
#include "tests/support/shared_assets.h"

namespace qkv::test {
namespace {

TEST(TokenizeJson, Stories260kByteFallback) {
    QKV_REQUIRE_SHARED(shared);
    const auto tokenizer = loadTokenizer(shared / "models" / "stories260K");
    EXPECT_EQ(tokenizer->vocabSize(), 512);
    EXPECT_EQ(idsOf(tokenizer->encode("Once upon a time")),
              (std::vector<int>{1, 403, 407, 261, 378}));

    // 🙂 is not in the vocabulary: one <0xXX> token per UTF-8 byte, each spanning the emoji;
    // the "▁" the normalizer prepends spans nothing.
    const std::string emoji = "\U0001F642";
    std::vector<Token> tokens = tokenizer->encode(emoji);
    EXPECT_EQ(idsOf(tokens), (std::vector<int>{1, 410, 243, 162, 156, 133}));
    EXPECT_EQ(piecesOf(tokens),
              (std::vector<std::string>{"<s>", "\u2581", "<0xF0>", "<0x9F>", "<0x99>", "<0x82>"}));
    EXPECT_EQ(surfacesOf(emoji, tokens),
              (std::vector<std::string>{"", "", emoji, emoji, emoji, emoji}));
    EXPECT_TRUE(tokens[0].special);
    EXPECT_FALSE(tokens[1].special);

    const std::string lines = "Hi\nthere";
    tokens = tokenizer->encode(lines);
    EXPECT_EQ(idsOf(tokens), (std::vector<int>{1, 320, 417, 13, 413, 260, 276}));
    EXPECT_EQ(surfacesOf(lines, tokens),
              (std::vector<std::string>{"", "H", "i", "\n", "t", "he", "re"}));
    // A doubled space: "▁" alone, then "▁b".
    tokens = tokenizer->encode("a  b");
    EXPECT_EQ(idsOf(tokens), (std::vector<int>{1, 261, 410, 268}));
    EXPECT_EQ(surfacesOf("a  b", tokens), (std::vector<std::string>{"", "a", " ", " b"}));

    EXPECT_EQ(tokenizer->displayText(403), " Once");
    EXPECT_EQ(tokenizer->displayText(13), "\n");
    EXPECT_EQ(tokenizer->displayText(243), "<0xF0>");  // a lone lead byte is not text
    EXPECT_EQ(tokenizer->displayText(1), "<s>");
    EXPECT_EQ(idsOf(tokenizer->encode("")), (std::vector<int>{1}));
}

TEST(TokenizeJson, AddedTokensInTextKeepTheirSpan) {
    QKV_REQUIRE_SHARED(shared);
    const auto tokenizer = loadTokenizer(shared / "models" / "stories260K");
    // As in Hugging Face tokenizers, the text after an added token is normalized on its own,
    // so it gets its own "▁".
    const std::vector<Token> tokens = tokenizer->encode("<s>Lily");
    EXPECT_EQ(idsOf(tokens), (std::vector<int>{1, 1, 317}));
    EXPECT_TRUE(tokens[0].special);
    EXPECT_FALSE(tokens[1].special);
    EXPECT_EQ(surfacesOf("<s>Lily", tokens), (std::vector<std::string>{"", "<s>", "Lily"}));
}

// tests/data/tokenizers/llama3-style: Split(Llama 3 regex) + ByteLevel, ignore_merges,
// <|begin_of_text|> (23) prepended by a TemplateProcessing inside a post-processor Sequence.
class TokenizeLlama3Style : public ::testing::Test {
  protected:
    void SetUp() override {
        m_tokenizer = loadTokenizer(testDataDir() / "tokenizers" / "llama3-style");
    }
    std::unique_ptr<Tokenizer> m_tokenizer;
};

TEST_F(TokenizeLlama3Style, SplitsThenMapsBytes) {
    const std::string text = "Hi 12345!";
    const std::vector<Token> tokens = m_tokenizer->encode(text);
    // \p{N}{1,3} cuts "123" | "45"; ignore_merges takes "45" whole although no merge makes it.
    EXPECT_EQ(idsOf(tokens), (std::vector<int>{23, 9, 2, 11, 12, 8}));
    EXPECT_EQ(surfacesOf(text, tokens),
              (std::vector<std::string>{"", "Hi", " ", "123", "45", "!"}));
    EXPECT_EQ(idsOf(m_tokenizer->encode("Hi\n")), (std::vector<int>{23, 9, 17}));
    EXPECT_EQ(idsOf(m_tokenizer->encode("")), (std::vector<int>{23}));
    EXPECT_EQ(m_tokenizer->displayText(2), " ");
    EXPECT_EQ(m_tokenizer->displayText(17), "\n");
}

TEST_F(TokenizeLlama3Style, ByteLevelPiecesOfOneCharacter) {
    const std::string emoji = "\U0001F642";  // F0 9F 99 82 -> "ðŁ" "Ļ" "Ĥ"
    const std::vector<Token> tokens = m_tokenizer->encode(emoji);
    EXPECT_EQ(idsOf(tokens), (std::vector<int>{23, 22, 20, 21}));
    EXPECT_EQ(surfacesOf(emoji, tokens), (std::vector<std::string>{"", emoji, emoji, emoji}));
    EXPECT_EQ(m_tokenizer->displayText(22), "<0xF0><0x9F>");
    EXPECT_EQ(m_tokenizer->vocabSize(), 24);
    EXPECT_EQ(m_tokenizer->piece(23), "<|begin_of_text|>");
}

TEST_F(TokenizeLlama3Style, SpecialTokenTypedInText) {
    const std::vector<Token> tokens = m_tokenizer->encode("<|begin_of_text|>Hi");
    EXPECT_EQ(idsOf(tokens), (std::vector<int>{23, 23, 9}));
    EXPECT_TRUE(tokens[0].special);
    EXPECT_FALSE(tokens[1].special);
    EXPECT_EQ(tokens[1].end, 17u);
}

// tests/data/tokenizers/metaspace: NFKC + Lowercase, Metaspace(prepend_scheme "first"),
// fuse_unk, <mask> with lstrip, RobertaProcessing <s> ... </s>.
class TokenizeMetaspace : public ::testing::Test {
  protected:
    void SetUp() override {
        m_tokenizer = loadTokenizer(testDataDir() / "tokenizers" / "metaspace");
    }
    std::unique_ptr<Tokenizer> m_tokenizer;
};

TEST_F(TokenizeMetaspace, NormalizesAndTracksSpans) {
    const std::string text = "AB ab";
    const std::vector<Token> tokens = m_tokenizer->encode(text);
    EXPECT_EQ(idsOf(tokens), (std::vector<int>{1, 11, 11, 2}));
    EXPECT_EQ(surfacesOf(text, tokens), (std::vector<std::string>{"", "AB", " ab", ""}));
    EXPECT_EQ(tokens[3].begin, text.size());
    // NFKC turns the ligature ﬁ into "fi"; the token spans the original character.
    const std::string ligature = "\uFB01";
    const std::vector<Token> fi = m_tokenizer->encode(ligature);
    EXPECT_EQ(idsOf(fi), (std::vector<int>{1, 4, 12, 2}));
    EXPECT_EQ(surfacesOf(ligature, fi), (std::vector<std::string>{"", "", ligature, ""}));
    EXPECT_EQ(m_tokenizer->displayText(11), " ab");
}

TEST_F(TokenizeMetaspace, FusesUnknownCharacters) {
    const std::vector<Token> tokens = m_tokenizer->encode("axyz");
    EXPECT_EQ(idsOf(tokens), (std::vector<int>{1, 9, 0, 2}));
    EXPECT_EQ(surfacesOf("axyz", tokens), (std::vector<std::string>{"", "a", "xyz", ""}));
}

TEST_F(TokenizeMetaspace, AddedTokenStripsLeftAndPrependsOnlyFirst) {
    std::vector<Token> tokens = m_tokenizer->encode("a <mask>");
    EXPECT_EQ(idsOf(tokens), (std::vector<int>{1, 9, 3, 2}));
    EXPECT_EQ(surfacesOf("a <mask>", tokens), (std::vector<std::string>{"", "a", " <mask>", ""}));
    // The text after <mask> does not start the input: no "▁" prepended.
    EXPECT_EQ(idsOf(m_tokenizer->encode("<mask>a")), (std::vector<int>{1, 3, 5, 2}));
}

// A tokenizer.json around `model` (a BPE model object) with the given other parts.
std::string tokenizerJson(const std::string& model, const std::string& normalizer = "null",
                          const std::string& preTokenizer = "null",
                          const std::string& addedTokens = "[]") {
    return R"({"version": "1.0", "added_tokens": )" + addedTokens + R"(, "normalizer": )" +
           normalizer + R"(, "pre_tokenizer": )" + preTokenizer +
           R"(, "post_processor": null, "decoder": null, "model": )" + model + "}";
}

std::unique_ptr<Tokenizer> load(const ScratchDir& dir, const std::string& json) {
    return loadTokenizer(dir.write("tokenizer.json", json));
}

constexpr const char* kAbcVocab = R"("vocab": {"a": 0, "b": 1, "c": 2, "ab": 3, "abc": 4})";

TEST(TokenizeJson, MergesAsStringsOrPairs) {
    const ScratchDir dir;
    const auto strings = load(dir, tokenizerJson(std::string(R"({"type": "BPE", )") + kAbcVocab +
                                                 R"(, "merges": ["a b", "ab c"]})"));
    const auto pairs = load(dir, tokenizerJson(std::string(R"({"type": "BPE", )") + kAbcVocab +
                                               R"(, "merges": [["a", "b"], ["ab", "c"]]})"));
    for (const auto* tokenizer : {strings.get(), pairs.get()})
        EXPECT_EQ(idsOf(tokenizer->encode("abcab")), (std::vector<int>{4, 3}));
}

TEST(TokenizeJson, UnknownCharactersWithoutUnkTokenAreDropped) {
    // What Hugging Face tokenizers does when a BPE model has neither unk_token nor byte tokens.
    const ScratchDir dir;
    const auto tokenizer = load(dir, tokenizerJson(std::string(R"({"type": "BPE", )") + kAbcVocab +
                                                   R"(, "merges": ["a b"]})"));
    // "x" vanishes, so "a" and "b" meet and merge.
    const std::vector<Token> tokens = tokenizer->encode("axb");
    EXPECT_EQ(idsOf(tokens), (std::vector<int>{3}));
    EXPECT_EQ(surfacesOf("axb", tokens), (std::vector<std::string>{"axb"}));
}

TEST(TokenizeJson, UnfusedUnknownsAndSubwordAffixes) {
    const ScratchDir dir;
    const auto tokenizer =
        load(dir, tokenizerJson(R"({"type": "BPE", "unk_token": "?", "fuse_unk": false,
            "continuing_subword_prefix": "##", "end_of_word_suffix": "</w>",
            "vocab": {"?": 0, "a": 1, "##b": 2, "##c</w>": 3, "ab": 4, "abc</w>": 5},
            "merges": ["a ##b", "ab ##c</w>"]})",
                                "null", R"({"type": "WhitespaceSplit"})"));
    EXPECT_EQ(idsOf(tokenizer->encode("abc xy")), (std::vector<int>{5, 0, 0}));
}

TEST(TokenizeJson, NormalizedAddedTokensMatchNormalizedText) {
    const ScratchDir dir;
    const auto tokenizer = load(
        dir, tokenizerJson(std::string(R"({"type": "BPE", )") + kAbcVocab + R"(, "merges": []})",
                           R"({"type": "Lowercase"})", "null",
                           R"([{"id": 5, "content": "ABC", "normalized": true, "special": false},
                          {"id": 6, "content": "ab", "single_word": true, "normalized": false,
                           "special": false, "rstrip": true}])"));
    EXPECT_EQ(tokenizer->vocabSize(), 7);
    // "ABC" is matched as "abc" after lower-casing; "ab" only as a whole word, swallowing the
    // white space on its right.
    std::vector<Token> tokens = tokenizer->encode("xABCx");
    EXPECT_EQ(idsOf(tokens), (std::vector<int>{5}));  // the x's have no token and are dropped
    EXPECT_EQ(surfacesOf("xABCx", tokens), (std::vector<std::string>{"ABC"}));
    const std::string text = "ab  cab";
    tokens = tokenizer->encode(text);
    EXPECT_EQ(idsOf(tokens), (std::vector<int>{6, 2, 0, 1}));
    EXPECT_EQ(surfacesOf(text, tokens), (std::vector<std::string>{"ab  ", "c", "a", "b"}));
}

TEST(TokenizeJson, StripReplaceAndDigits) {
    const ScratchDir dir;
    const auto tokenizer =
        load(dir, tokenizerJson(R"({"type": "BPE", "vocab": {"1": 0, "2": 1, "_": 2, "12": 3},
                          "merges": ["1 2"]})",
                                R"({"type": "Sequence", "normalizers": [
                            {"type": "Strip", "strip_left": true, "strip_right": true},
                            {"type": "Replace", "pattern": {"Regex": "\\s+"}, "content": "_"}]})",
                                R"({"type": "Digits", "individual_digits": true})"));
    const std::string text = "  12 \t 1 ";
    const std::vector<Token> tokens = tokenizer->encode(text);
    // "12_1" with single digits: 1 2 _ 1 (no "12" merge across pre-tokenized pieces).
    EXPECT_EQ(idsOf(tokens), (std::vector<int>{0, 1, 2, 0}));
    EXPECT_EQ(surfacesOf(text, tokens), (std::vector<std::string>{"1", "2", " \t ", "1"}));
}

}  // namespace
}  // namespace qkv::test
