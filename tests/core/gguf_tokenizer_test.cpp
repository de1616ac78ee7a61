// A GGUF file's own tokenizer: GGUF metadata written from the real Qwen3, gpt-oss and GPT-NeoX
// tokenizers (tokens, token types, merges, the pre name llama.cpp's converter gives them) encodes
// every sentence of their token_reference.json as Hugging Face does; kinds not read yet are
// refused with the reason.
#include "core/model/gguf_tokenizer.h"

#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "core/io/gguf_writer.h"
#include "core/util/error.h"
#include "tests/support/fixture_writer.h"
#include "tests/support/shared_assets.h"

namespace qkv {
namespace {

nlohmann::json readJson(const std::filesystem::path& file) {
    std::ifstream in(file);
    return nlohmann::json::parse(in);
}

// tokenizer.ggml.* as llama.cpp's converter writes it for a byte-level BPE tokenizer.json: every
// id's piece (gaps as unused pieces), control tokens type 3, other added tokens type 4.
void writeTokenizerMetadata(const nlohmann::json& tokenizer, const std::string& pre,
                            GgufWriter& gguf) {
    std::vector<std::string> tokens;
    std::vector<std::int32_t> types;
    auto place = [&](std::size_t id, const std::string& piece, std::int32_t type) {
        if (tokens.size() <= id) {
            for (std::size_t i = tokens.size(); i <= id; ++i)
                tokens.push_back("[PAD" + std::to_string(i) + "]");
            types.resize(tokens.size(), 5);  // unused
        }
        tokens[id] = piece;
        types[id] = type;
    };
    for (const auto& [piece, id] : tokenizer["model"]["vocab"].items()) place(id, piece, 1);
    for (const nlohmann::json& added : tokenizer["added_tokens"])
        place(added["id"], added["content"], added["special"].get<bool>() ? 3 : 4);
    std::vector<std::string> merges;
    for (const nlohmann::json& merge : tokenizer["model"]["merges"])
        merges.push_back(merge.is_string()
                             ? merge.get<std::string>()
                             : merge[0].get<std::string>() + " " + merge[1].get<std::string>());
    gguf.addString("tokenizer.ggml.model", "gpt2");
    gguf.addString("tokenizer.ggml.pre", pre);
    gguf.addStrings("tokenizer.ggml.tokens", tokens);
    gguf.addInt32s("tokenizer.ggml.token_type", types);
    gguf.addStrings("tokenizer.ggml.merges", merges);
    gguf.addBool("tokenizer.ggml.add_bos_token", false);
}

class GgufTokenizer : public testing::TestWithParam<std::pair<std::string, std::string>> {};

TEST_P(GgufTokenizer, EncodesAsTheTokenizerItWasWrittenFrom) {
    QKV_REQUIRE_SHARED(shared);
    const auto folder = shared / "tokenizers" / GetParam().first;
    const test::TempDir dir;
    GgufWriter gguf;
    gguf.addString("general.architecture", "qwen3");
    writeTokenizerMetadata(readJson(folder / "tokenizer.json"), GetParam().second, gguf);
    gguf.write(dir.path() / "t.gguf");
    const auto tokenizer = ggufTokenizer(GgufFile(dir.path() / "t.gguf"));
    const nlohmann::json reference = readJson(folder / "token_reference.json");
    ASSERT_FALSE(reference["add_special_tokens_default"].get<bool>());
    for (const nlohmann::json& sentence : reference["sentences"]) {
        const std::string text = sentence["text"];
        std::vector<int> ids;
        for (const Token& t : tokenizer->encode(text)) ids.push_back(t.id);
        EXPECT_EQ(ids, sentence["ids"].get<std::vector<int>>()) << text;
    }
}

INSTANTIATE_TEST_SUITE_P(Shared, GgufTokenizer,
                         testing::Values(std::pair{std::string("qwen3"), std::string("qwen2")},
                                         std::pair{std::string("gpt-oss"), std::string("gpt-4o")},
                                         // GPT-NeoX's vocabulary, which ModernBERT's descends
                                         // from, under the name its converter gives ModernBERT
                                         std::pair{std::string("pythia"),
                                                   std::string("modern-bert")}),
                         [](const auto& info) {
                             std::string name = info.param.first;
                             for (char& ch : name)
                                 if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
                             return name;
                         });

TEST(GgufTokenizerKinds, ThoseNotReadAreRefusedWithTheReason) {
    const test::TempDir dir;
    auto refusal = [&](const GgufWriter& gguf) {
        gguf.write(dir.path() / "t.gguf");
        try {
            ggufTokenizer(GgufFile(dir.path() / "t.gguf"));
            return std::string("(read)");
        } catch (const Error& e) {
            return std::string(e.what());
        }
    };
    GgufWriter none;
    EXPECT_NE(refusal(none).find("no tokenizer"), std::string::npos);
    GgufWriter unigram;
    unigram.addString("tokenizer.ggml.model", "t5");
    EXPECT_NE(refusal(unigram).find("\"t5\" (tokenizer.ggml.model) are not read yet"),
              std::string::npos);
    GgufWriter unknown;
    unknown.addString("tokenizer.ggml.model", "gpt2");
    unknown.addString("tokenizer.ggml.pre", "no-such-pre");
    EXPECT_NE(refusal(unknown).find("\"no-such-pre\""), std::string::npos);
}

}  // namespace
}  // namespace qkv
