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

// OPT's tokenizer is GPT-2's vocab.json + merges.txt with </s> put before the text; any GPT-2
// tokenizer whose tokenizer_config.json sets add_bos_token puts its bos_token there.
TEST(TokenizeFamily, BosAddingGpt2Tokenizers) {
    const auto tiny = testDataDir() / "tokenizers" / "gpt2-tiny";
    std::ifstream in(tiny / "vocab.json");
    nlohmann::json vocab = nlohmann::json::parse(in);
    vocab["</s>"] = 11;
    struct Case {
        const char* config;
        const char* tokenizerConfig;
        std::vector<int> ids;
    };
    for (const Case& c :
         {Case{R"({"model_type": "opt"})", nullptr, {11, 5, 6}},
          Case{nullptr,
               R"({"add_bos_token": true, "bos_token": {"content": "<|endoftext|>"}})",
               {10, 5, 6}},
          Case{R"({"model_type": "gpt2"})", nullptr, {5, 6}}}) {
        ScratchDir dir;
        dir.write("vocab.json", vocab.dump());
        std::filesystem::copy_file(tiny / "merges.txt", dir.path() / "merges.txt");
        if (c.config) dir.write("config.json", c.config);
        if (c.tokenizerConfig) dir.write("tokenizer_config.json", c.tokenizerConfig);
        const std::vector<Token> tokens = loadTokenizer(dir.path())->encode("ab a");
        EXPECT_EQ(idsOf(tokens), c.ids);
        EXPECT_EQ(tokens.front().special, c.ids.size() == 3);
    }
}

}  // namespace
}  // namespace qkv::test
