// Opening checkpoint folders: the key layouts the Hub uses, dtypes, and every way a folder can
// be wrong (each error names the file, tensor or key at fault).
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "core/model/forward.h"
#include "core/model/model_family.h"
#include "core/util/half.h"
#include "tests/support/fixture_writer.h"
#include "tests/support/shared_assets.h"

namespace qkv {
namespace {

using test::TempDir;

void expectOpenError(const std::filesystem::path& dir, const std::string& fragment) {
    try {
        Model::open(dir);
        FAIL() << "expected an error containing '" << fragment << "'";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
    }
}

RowMatrixXf firstHeadAttention(const std::filesystem::path& dir) {
    auto model = Model::open(dir);
    auto backend = createCpuBackend();
    ForwardRequest request;
    request.ids = {1, 2, 3, 4};
    return ForwardPass(*model, *backend).run(request).trace.probabilities(1, 0);
}

TEST(ModelOpen, PrefixedAndUnprefixedNamesGiveTheSameModel) {
    TempDir plain, prefixed;
    test::writeTinyGpt2(plain.path());
    test::writeTinyGpt2(prefixed.path());
    auto tensors = test::tinyGpt2Tensors({});
    std::map<std::string, test::FixtureTensor> renamed;
    for (auto& [name, t] : tensors) renamed["transformer." + name] = t;
    // The causal-mask buffer the Hub's gpt2 file carries is ignored.
    renamed["transformer.h.0.attn.bias"] = {{1, 1, 16, 16}, std::vector<float>(256, 1.0f)};
    test::writeSafetensors(prefixed.path() / "model.safetensors", renamed);
    EXPECT_EQ(firstHeadAttention(plain.path()), firstHeadAttention(prefixed.path()));
}

TEST(ModelOpen, Float16WeightsLoad) {
    TempDir f32, f16;
    test::writeTinyGpt2(f32.path());
    test::writeTinyGpt2(f16.path());
    // Round every weight through float16, then store the float32 file with the rounded values
    // and the float16 file with the half bits: both must give identical results.
    auto tensors = test::tinyGpt2Tensors({});
    nlohmann::json header = nlohmann::json::object();
    std::vector<std::uint8_t> data;
    for (auto& [name, t] : tensors) {
        const size_t begin = data.size();
        for (float& v : t.values) {
            const std::uint16_t h = floatToF16(v);
            v = f16ToFloat(h);
            data.push_back(h & 0xFF);
            data.push_back(h >> 8);
        }
        header[name] = {
            {"dtype", "F16"}, {"shape", t.shape}, {"data_offsets", {begin, data.size()}}};
    }
    test::writeRawSafetensors(f16.path() / "model.safetensors", header.dump(), data);
    test::writeSafetensors(f32.path() / "model.safetensors", tensors);
    EXPECT_EQ(firstHeadAttention(f32.path()), firstHeadAttention(f16.path()));
}

TEST(ModelOpen, LegacyLayerNormNamesAndLlamaGqa) {
    TempDir bert, llama;
    test::writeTinyBert(bert.path());  // embeddings.LayerNorm.gamma / .beta
    test::TinyModelSpec spec;
    spec.kvHeads = 2;
    test::writeTinyLlama(llama.path(), spec);
    auto b = Model::open(bert.path());
    EXPECT_FALSE(b->architecture().causal);
    EXPECT_FALSE(b->hasLogits());  // no masked-LM head in the fixture
    auto l = Model::open(llama.path());
    EXPECT_EQ(l->architecture().kvGroup(), 2);
    EXPECT_TRUE(l->hasLogits());  // tied to the embeddings
    EXPECT_EQ(l->tokenizer(), nullptr);
    EXPECT_NE(l->tokenizerError(), "");
    EXPECT_THROW(l->tokenize("hello"), Error);
}

TEST(ModelOpenErrors, Folder) {
    expectOpenError("/nonexistent-model-folder", "not a folder");
    TempDir dir;
    expectOpenError(dir.path(), "config.json");
}

TEST(ModelOpenErrors, ConfigJson) {
    TempDir dir;
    test::writeTinyGpt2(dir.path());
    const auto config = dir.path() / "config.json";
    test::writeText(config, "{\"model_type\": \"gpt2\", ");
    expectOpenError(dir.path(), "not valid JSON");
    test::writeText(config, R"({"model_type": "whisper", "d_model": 8})");
    expectOpenError(dir.path(), "unsupported architecture \"whisper\"");
    test::writeText(config, R"({"n_layer": 2})");
    expectOpenError(dir.path(), "(no model_type)");
    test::writeText(config,
                    R"({"model_type": "gpt2", "n_layer": 2, "n_head": 4, "vocab_size": 50})");
    expectOpenError(dir.path(), "missing \"n_embd\"");
    test::writeText(
        config,
        R"({"model_type": "gpt2", "n_layer": "2", "n_head": 4, "n_embd": 32, "vocab_size": 50})");
    expectOpenError(dir.path(), "\"n_layer\" must be a positive integer");
    test::writeText(
        config,
        R"({"model_type": "gpt2", "n_layer": 2, "n_head": 5, "n_embd": 32, "vocab_size": 50})");
    expectOpenError(dir.path(), "not divisible by 5 heads");
    test::writeText(
        config,
        R"({"model_type": "gpt2", "n_layer": 2, "n_head": 4, "n_embd": 32, "vocab_size": 50, "activation_function": "mish"})");
    expectOpenError(dir.path(), "unsupported activation function \"mish\"");
}

TEST(ModelOpenErrors, MissingAndMisshapenTensors) {
    TempDir dir;
    test::writeTinyGpt2(dir.path());
    auto tensors = test::tinyGpt2Tensors({});
    tensors.erase("h.1.ln_2.bias");
    test::writeSafetensors(dir.path() / "model.safetensors", tensors);
    expectOpenError(dir.path(), "missing tensor 'h.1.ln_2.bias'");

    tensors = test::tinyGpt2Tensors({});
    tensors["h.0.attn.c_attn.weight"].shape = {32 * 3, 32};
    test::writeSafetensors(dir.path() / "model.safetensors", tensors);
    expectOpenError(dir.path(), "'h.0.attn.c_attn.weight' has shape [96, 32], expected [32, 96]");

    // config.json promising more layers than the file has.
    test::writeText(
        dir.path() / "config.json",
        R"({"model_type": "gpt2", "n_layer": 3, "n_head": 4, "n_embd": 32, "n_positions": 16, "vocab_size": 50})");
    test::writeSafetensors(dir.path() / "model.safetensors", test::tinyGpt2Tensors({}));
    expectOpenError(dir.path(), "missing tensor 'h.2.ln_1.weight'");
}

TEST(ModelOpen, ParameterCountsOfSharedModels) {
    QKV_REQUIRE_SHARED(shared);
    // From shared/models/PROVENANCE.md (tied embeddings counted once).
    const std::map<std::string, std::uint64_t> expected = {
        {"gpt2-random-tiny", 3324736},   {"bert-random-tiny", 2096634},
        {"llama-random-gqa", 139584},    {"stories260K", 260032},
        {"gpt-nano-sort", 85728},        {"gpt_neox-random-tiny", 231168},
        {"qwen2-random-tiny", 205376},   {"gemma2-random-tiny", 164416},
        {"phi3-random-tiny", 213312},    {"opt-random-tiny", 173952},
        {"roberta-random-tiny", 179328}, {"distilbert-random-tiny", 179136}};
    for (const auto& [name, count] : expected) {
        auto model = Model::open(shared / "models" / name);
        EXPECT_EQ(model->parameterCount(), count) << name;
        // The new families' test folders carry no tokenizer files (their ids follow a word rule).
        if (std::filesystem::exists(shared / "models" / name / "vocab.json") ||
            std::filesystem::exists(shared / "models" / name / "vocab.txt") ||
            std::filesystem::exists(shared / "models" / name / "tokenizer.json"))
            EXPECT_NE(model->tokenizer(), nullptr) << name << ": " << model->tokenizerError();
        else
            EXPECT_NE(model->tokenizerError().find("no tokenizer files"), std::string::npos);
    }
}

}  // namespace
}  // namespace qkv
