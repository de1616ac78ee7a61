// `attention --dense` on Llama 4's chunked layers: each head of a chunked layer gives its dense
// counterfactual and the mass it drops per query, consistent with the model's own attention;
// the global NoPE layer gives neither. Models without such a mask, and --no-scores, are refused.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "tests/cli/cli_run.h"
#include "tests/support/reference.h"
#include "tests/support/shared_assets.h"

namespace qkv {
namespace {

// float32 softmax rows written with 7 significant digits.
constexpr double kTolerance = 1e-5;

std::string idsOf(const std::filesystem::path& folder) {
    const test::ModelReference reference = test::loadReference(folder / "hf_reference.json");
    std::string ids;
    for (int id : reference.sentences.front().ids)
        ids += (ids.empty() ? "" : ",") + std::to_string(id);
    return ids;
}

TEST(CliMaskedKeys, ChunkedLayersGiveTheirDenseCounterfactualAndDroppedMass) {
    QKV_REQUIRE_SHARED(shared);
    const auto folder = shared / "models" / "llama4-random-tiny";  // chunks of 4, layer 3 global
    const test::CliRun r = test::cli({"attention", "--model", folder.string(), "--ids",
                                      idsOf(folder), "--backend", "cpu", "--dense", "--json"});
    ASSERT_EQ(r.exitCode, 0) << r.err;
    const nlohmann::json layers = r.json()["layers"];
    ASSERT_EQ(layers.size(), 4u);
    EXPECT_EQ(layers[0]["kind"], "attention_chunked");
    EXPECT_EQ(layers[3]["kind"], "attention");
    EXPECT_FALSE(layers[3]["heads"][0].contains("dense_attention"));
    double droppedSomewhere = 0.0;
    for (int l = 0; l < 3; ++l)
        for (const nlohmann::json& head : layers[l]["heads"]) {
            const nlohmann::json& p = head["attention"];
            const nlohmann::json& dense = head["dense_attention"];
            const nlohmann::json& dropped = head["dropped_mass"];
            ASSERT_EQ(dense.size(), p.size());
            for (size_t i = 0; i < p.size(); ++i) {
                const size_t chunkStart = i - i % 4;
                double sum = 0.0, hidden = 0.0, ratio = 0.0;
                for (size_t j = 0; j <= i; ++j) {
                    sum += dense[i][j].get<double>();
                    if (j < chunkStart) hidden += dense[i][j].get<double>();
                }
                for (size_t j = i + 1; j < p.size(); ++j) EXPECT_EQ(dense[i][j].get<double>(), 0.0);
                EXPECT_NEAR(sum, 1.0, kTolerance) << "the counterfactual is a causal softmax";
                EXPECT_NEAR(dropped[i].get<double>(), hidden, kTolerance);
                if (i < 4) EXPECT_EQ(dropped[i].get<double>(), 0.0) << "the first chunk sees all";
                // On the keys the chunk shows, the model's row times one factor.
                for (size_t j = chunkStart; j <= i; ++j) {
                    const double factor = dense[i][j].get<double>() / p[i][j].get<double>();
                    if (j == chunkStart) ratio = factor;
                    EXPECT_NEAR(factor, ratio, 1e-4 * ratio) << "layer " << l << " row " << i;
                }
                EXPECT_NEAR(ratio, 1.0 - dropped[i].get<double>(), 1e-4);
                droppedSomewhere += dropped[i].get<double>();
            }
        }
    EXPECT_GT(droppedSomewhere, 1.0) << "later chunks lose keys";

    // analyze gives each head of a chunked layer its mean dropped mass.
    const test::CliRun analyzed = test::cli({"analyze", "--model", folder.string(), "--ids",
                                             idsOf(folder), "--backend", "cpu", "--json"});
    ASSERT_EQ(analyzed.exitCode, 0) << analyzed.err;
    for (const nlohmann::json& head : analyzed.json()["layers"][0]["heads"])
        EXPECT_GT(head.at("dropped_mass").get<double>(), 0.0);
    EXPECT_FALSE(analyzed.json()["layers"][3]["heads"][0].contains("dropped_mass"));

    const test::CliRun text =
        test::cli({"attention", "--model", folder.string(), "--ids", idsOf(folder), "--layer", "0",
                   "--head", "0", "--backend", "cpu", "--dense"});
    ASSERT_EQ(text.exitCode, 0) << text.err;
    EXPECT_NE(text.out.find("dense counterfactual"), std::string::npos) << text.out;
    EXPECT_NE(text.out.find("dropped mass"), std::string::npos) << text.out;
}

TEST(CliMaskedKeys, DenseIsRefusedWhereNoMaskHidesKeysOrWithoutScores) {
    QKV_REQUIRE_SHARED(shared);
    const auto gpt2 = shared / "models" / "gpt2-random-tiny";
    const test::CliRun plain =
        test::cli({"attention", "--model", gpt2.string(), "--ids", "1,2,3", "--dense"});
    EXPECT_NE(plain.exitCode, 0);
    EXPECT_NE(plain.err.find("no layer whose mask hides keys"), std::string::npos) << plain.err;
    const auto llama4 = shared / "models" / "llama4-random-tiny";
    const test::CliRun noScores = test::cli(
        {"attention", "--model", llama4.string(), "--ids", "1,2,3", "--dense", "--no-scores"});
    EXPECT_NE(noScores.exitCode, 0);
    EXPECT_NE(noScores.err.find("--dense reads the scores"), std::string::npos) << noScores.err;
}

// DeepSeek-V3.2's sparse attention: each layer lists the keys its indexer kept (as transformers
// chose them), with the indexer's scores; a head's counterfactual spreads the same scores over
// every causal key, and analyze gives each head's indexer agreement and dropped mass.
TEST(CliMaskedKeys, SparseLayersGiveTheirKeptKeysAndWhatTheIndexerDropped) {
    QKV_REQUIRE_SHARED(shared);
    const auto folder = shared / "models" / "deepseek_v32-random-tiny";
    const test::ModelReference reference = test::loadReference(folder / "hf_reference.json");
    const auto& expected = reference.sentences.front().results.at("original");
    const test::CliRun r = test::cli({"attention", "--model", folder.string(), "--ids",
                                      idsOf(folder), "--backend", "cpu", "--dense", "--json"});
    ASSERT_EQ(r.exitCode, 0) << r.err;
    const nlohmann::json layers = r.json()["layers"];
    ASSERT_EQ(layers.size(), expected.selectedKeys.size());
    for (size_t l = 0; l < layers.size(); ++l) {
        EXPECT_EQ(layers[l]["kind"], "attention_sparse");
        EXPECT_EQ(layers[l]["selected_keys"].get<std::vector<std::vector<int>>>(),
                  expected.selectedKeys[l]);
        const nlohmann::json& scores = layers[l]["indexer_scores"];
        ASSERT_EQ(scores.size(), expected.selectedKeys[l].size());
        for (const nlohmann::json& head : layers[l]["heads"]) {
            const nlohmann::json& dense = head["dense_attention"];
            const nlohmann::json& dropped = head["dropped_mass"];
            for (size_t i = 0; i < dense.size(); ++i) {
                const std::vector<int>& kept = expected.selectedKeys[l][i];
                double hidden = 0.0;
                for (size_t j = 0; j <= i; ++j)
                    if (std::find(kept.begin(), kept.end(), static_cast<int>(j)) == kept.end())
                        hidden += dense[i][j].get<double>();
                EXPECT_NEAR(dropped[i].get<double>(), hidden, kTolerance);
            }
        }
    }

    const test::CliRun analyzed = test::cli({"analyze", "--model", folder.string(), "--ids",
                                             idsOf(folder), "--backend", "cpu", "--json"});
    ASSERT_EQ(analyzed.exitCode, 0) << analyzed.err;
    const nlohmann::json heads = analyzed.json()["layers"][0]["heads"];
    ASSERT_FALSE(heads.empty());
    for (const nlohmann::json& head : heads) {
        const double agreement = head.at("indexer_agreement").get<double>();
        EXPECT_GE(agreement, 0.0);
        EXPECT_LE(agreement, 1.0);
        EXPECT_GT(head.at("dropped_mass").get<double>(), 0.0);
    }
    const test::CliRun info = test::cli({"info", "--model", folder.string()});
    EXPECT_NE(info.out.find("3 sparse"), std::string::npos) << info.out;
    EXPECT_NE(info.out.find("8 heads of 16 keep each query's top 4 keys"), std::string::npos)
        << info.out;
}

}  // namespace
}  // namespace qkv
