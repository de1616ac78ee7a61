// Real tokenizer files of further families (shared/tokenizers/<name>, token_reference.json with
// the ids Hugging Face's own implementations give), with and without special tokens.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "core/tokenize/tokenizer.h"
#include "tests/core/tokenize_test_files.h"
#include "tests/support/shared_assets.h"

namespace qkv::test {
namespace {

class TokenizeFamily : public testing::TestWithParam<std::string> {};

TEST_P(TokenizeFamily, MatchesTokenReference) {
    QKV_REQUIRE_SHARED(shared);
    const auto folder = shared / "tokenizers" / GetParam();
    std::ifstream in(folder / "token_reference.json");
    ASSERT_TRUE(in) << folder;
    const nlohmann::json reference = nlohmann::json::parse(in);
    const auto tokenizer = loadTokenizer(folder);
    ASSERT_FALSE(reference.at("sentences").empty());
    for (const auto& sentence : reference.at("sentences")) {
        const std::string text = sentence.at("text").get<std::string>();
        SCOPED_TRACE(text);
        const std::vector<Token> tokens = tokenizer->encode(text);
        EXPECT_EQ(idsOf(tokens), sentence.at("ids").get<std::vector<int>>());
        EXPECT_EQ(piecesOf(tokens), sentence.at("tokens").get<std::vector<std::string>>());
        // Without the special tokens the tokenizer adds (those it flags special).
        std::vector<int> plain;
        for (const Token& t : tokens)
            if (!t.special) plain.push_back(t.id);
        EXPECT_EQ(plain, sentence.at("ids_no_special").get<std::vector<int>>());
    }
}

INSTANTIATE_TEST_SUITE_P(SharedTokenizers, TokenizeFamily,
                         testing::Values("pythia", "qwen2", "roberta"),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace qkv::test
