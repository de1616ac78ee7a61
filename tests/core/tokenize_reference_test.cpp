// Token ids and pieces against Hugging Face references: every sentence of every shared model's
// hf_reference.json, and the Hub's gpt2 / bert-base-uncased vocabularies directly.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>

#include "core/tokenize/tokenizer.h"
#include "core/util/error.h"
#include "tests/core/tokenize_test_files.h"
#include "tests/support/reference.h"
#include "tests/support/shared_assets.h"

namespace qkv::test {
namespace {

std::string asciiLower(std::string s) {
    std::transform(s.begin(), s.end(), s.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return s;
}

// Spans of text tokens run left to right without overlap, and each covers the token's text:
// what displayText shows, up to case (BERT) and a leading space that normalization prepended.
void expectSpansCoverText(const Tokenizer& tokenizer, const std::string& text,
                          const std::vector<Token>& tokens) {
    std::size_t previousEnd = 0;
    const std::vector<std::string> surfaces = surfacesOf(text, tokens);
    for (std::size_t i = 0; i < tokens.size(); ++i) {
        const Token& t = tokens[i];
        if (t.special) {
            EXPECT_EQ(t.begin, t.end) << "special token " << t.piece;
            continue;
        }
        EXPECT_GE(t.begin, previousEnd) << "token " << i << " '" << t.piece << "' overlaps";
        previousEnd = t.end;
        const std::string surface = asciiLower(surfaces[i]);
        const std::string shown = asciiLower(tokenizer.displayText(t.id));
        EXPECT_TRUE(shown == surface || shown == " " + surface)
            << "token " << i << " '" << t.piece << "' shows '" << shown << "' but spans '"
            << surface << "'";
    }
}

TEST(TokenizeReference, EverySharedModelMatchesHuggingFace) {
    QKV_REQUIRE_SHARED(shared);
    const std::vector<std::string> models = sharedModelNames(shared);
    ASSERT_GE(models.size(), 5u);
    int compared = 0;
    for (const std::string& name : models) {
        SCOPED_TRACE(name);
        const ModelReference ref = loadReference(shared / "models" / name / "hf_reference.json");
        ASSERT_FALSE(ref.sentences.empty());
        if (!ref.hasTokenizerFiles()) {
            // The folder ships no tokenizer (its ids follow a word rule): loading one must say so.
            EXPECT_THROW(
                {
                    try {
                        loadTokenizer(shared / "models" / name);
                    } catch (const Error& e) {
                        EXPECT_NE(std::string(e.what()).find("no tokenizer files"),
                                  std::string::npos)
                            << e.what();
                        throw;
                    }
                },
                Error);
            continue;
        }
        const auto tokenizer = loadTokenizer(shared / "models" / name);
        for (const ReferenceSentence& sentence : ref.sentences) {
            SCOPED_TRACE(sentence.text);
            const std::vector<Token> tokens = tokenizer->encode(sentence.text);
            EXPECT_EQ(idsOf(tokens), sentence.ids);
            EXPECT_EQ(piecesOf(tokens), sentence.tokens);
            expectSpansCoverText(*tokenizer, sentence.text, tokens);
        }
        ++compared;
    }
    EXPECT_GE(compared, 5) << "shared models with tokenizer files";
}

constexpr const char* kExample = "The movie was a box office bomb.";

TEST(TokenizeReference, HubGpt2Vocabulary) {
    QKV_REQUIRE_SHARED(shared);
    const auto tokenizer = loadTokenizer(shared / "tokenizers" / "gpt2");
    EXPECT_EQ(tokenizer->vocabSize(), 50257);
    const std::vector<Token> tokens = tokenizer->encode(kExample);
    EXPECT_EQ(idsOf(tokens), (std::vector<int>{464, 3807, 373, 257, 3091, 2607, 5194, 13}));
    EXPECT_EQ(piecesOf(tokens), (std::vector<std::string>{"The", "Ġmovie", "Ġwas", "Ġa", "Ġbox",
                                                          "Ġoffice", "Ġbomb", "."}));
    EXPECT_EQ(
        surfacesOf(kExample, tokens),
        (std::vector<std::string>{"The", " movie", " was", " a", " box", " office", " bomb", "."}));
    EXPECT_EQ(tokenizer->displayText(3807), " movie");
    EXPECT_EQ(tokenizer->piece(50256), "<|endoftext|>");
}

TEST(TokenizeReference, HubBertUncasedVocabulary) {
    QKV_REQUIRE_SHARED(shared);
    const auto tokenizer = loadTokenizer(shared / "tokenizers" / "bert-base-uncased");
    EXPECT_EQ(tokenizer->vocabSize(), 30522);
    const std::vector<Token> tokens = tokenizer->encode(kExample);
    EXPECT_EQ(idsOf(tokens),
              (std::vector<int>{101, 1996, 3185, 2001, 1037, 3482, 2436, 5968, 1012, 102}));
    EXPECT_EQ(surfacesOf(kExample, tokens),
              (std::vector<std::string>{"", "The", "movie", "was", "a", "box", "office", "bomb",
                                        ".", ""}));
    EXPECT_TRUE(tokens.front().special);
    EXPECT_TRUE(tokens.back().special);
    EXPECT_EQ(tokens.back().begin, std::string(kExample).size());
}

}  // namespace
}  // namespace qkv::test
