// qkvlab-cli's training lab commands end to end: a tiny model trained on the built-in stories is
// scored by `evaluate` with its relation probe, `experiment` trains and summarises variants over
// seeds, and bad variant lists are usage errors.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "core/train/story_grammar.h"
#include "tests/cli/cli_run.h"
#include "tests/support/fixture_writer.h"

namespace qkv {
namespace {

using test::cli;
using test::CliRun;

// The smallest shape that still trains: a few seconds per run, most of it the BPE on the stories.
const std::vector<std::string> kTinyShape{"--layers",  "1",  "--heads", "2", "--d-model", "16",
                                          "--context", "32", "--steps", "4", "--batch",   "2"};

// A variant whose inference configuration is its own (shared-qk-reformer), and one that is a
// model of its own (full-bilinear, which runs under learned).
class CliTrainedVariant : public ::testing::TestWithParam<std::pair<const char*, const char*>> {};

TEST_P(CliTrainedVariant, EvaluateScoresTheRelationProbeOnTheBuiltinStories) {
    const auto [variant, configuration] = GetParam();
    test::TempDir dir;
    const std::string model = (dir.path() / "m").string();
    std::vector<std::string> train{"train", "--config", variant, "--out", model};
    train.insert(train.end(), kTinyShape.begin(), kTinyShape.end());
    const CliRun trained = cli(train);
    ASSERT_EQ(trained.exitCode, 0) << trained.err;
    const CliRun r = cli({"evaluate", "--model", model, "--json"});
    ASSERT_EQ(r.exitCode, 0) << r.err;
    const auto doc = r.json();
    EXPECT_EQ(doc["config"], configuration);  // the configuration it was trained under
    EXPECT_EQ(doc["relation_pairs"], 322);
    EXPECT_GE(doc["relation_accuracy"].get<double>(), 0.0);
    EXPECT_LE(doc["relation_accuracy"].get<double>(), 1.0);
    EXPECT_EQ(doc["relation_accuracy_by_kind"].size(), 5u);
    // evaluate and the training log's last point score the same stories the same way.
    std::ifstream in(dir.path() / "m" / "training_log.json");
    const auto log = nlohmann::json::parse(in);
    EXPECT_NEAR(doc["loss"].get<double>(), log["final"]["val_loss"].get<double>(), 1e-5);
    EXPECT_NEAR(doc["relation_accuracy"].get<double>(),
                log["final"]["relation_accuracy"].get<double>(), 1.0 / 322);
}

INSTANTIATE_TEST_SUITE_P(Variants, CliTrainedVariant,
                         ::testing::Values(std::pair{"shared-qk-reformer", "shared-qk-reformer"},
                                           std::pair{"full-bilinear", "learned"}),
                         [](const auto& info) {
                             std::string name = info.param.first;
                             std::erase(name, '-');
                             return name;
                         });

// A full-bilinear model's weight analysis is of each head's d_model x d_model W_h, and the
// configurations that would share or tie its missing W_Q, W_K are refused by name.
TEST(CliTrain, FullBilinearModelIsAnalysedAndRefusesTyings) {
    test::TempDir dir;
    const std::string model = (dir.path() / "m").string();
    std::vector<std::string> train{"train", "--config", "full-bilinear", "--out", model};
    train.insert(train.end(), kTinyShape.begin(), kTinyShape.end());
    ASSERT_EQ(cli(train).exitCode, 0);
    const CliRun analysed = cli({"analyze", "--model", model, "--json", "--no-copying-score"});
    ASSERT_EQ(analysed.exitCode, 0) << analysed.err;
    EXPECT_NE(analysed.json()["bilinear_form"].get<std::string>().find("full-bilinear"),
              std::string::npos);
    const auto head = analysed.json()["layers"][0]["heads"][1];
    EXPECT_EQ(head["wqk_singular_values"].size(), 16u);  // d_model, where d_k is 8
    EXPECT_GT(head["wqk_rank"].get<int>(), 8);           // random W_h after 4 steps: beyond any d_k
    const CliRun tied = cli({"attention", "--model", model, "--text", "the cat", "--config",
                             "tied-kv", "--layer", "0", "--head", "0"});
    EXPECT_NE(tied.exitCode, 0);
    EXPECT_NE(tied.err.find("not defined for a full-bilinear model"), std::string::npos)
        << tied.err;
}

// On a small corpus file (no relation probe), so that the four runs take seconds.
TEST(CliTrain, ExperimentWritesRunsAndASummaryTable) {
    test::TempDir dir;
    const std::string out = (dir.path() / "x").string();
    const auto corpus = dir.path() / "stories.txt";
    std::ofstream(corpus) << [] {
        std::string text;
        for (const std::string& story : train::generateStories(5, 150)) text += story + "\n\n";
        return text;
    }();
    std::vector<std::string> args{"experiment",    "--variants", "learned,full-bilinear",
                                  "--seeds",       "2",          "--corpus",
                                  corpus.string(), "--vocab",    "300",
                                  "--out",         out};
    args.insert(args.end(), kTinyShape.begin(), kTinyShape.end());
    const CliRun r = cli(args);
    ASSERT_EQ(r.exitCode, 0) << r.err;
    EXPECT_NE(r.err.find("[4/4]"), std::string::npos) << r.err;
    EXPECT_NE(r.out.find("| `full-bilinear` |"), std::string::npos) << r.out;
    std::ifstream in(dir.path() / "x" / "summary.json");
    const auto summary = nlohmann::json::parse(in);
    EXPECT_EQ(summary["seeds"], nlohmann::json({1, 2}));
    const auto& bilinear = summary["variants"][1];
    EXPECT_EQ(bilinear["name"], "full-bilinear");
    EXPECT_EQ(bilinear["runs"].size(), 2u);
    EXPECT_TRUE(bilinear.contains("bilinear_effective_rank"));
    EXPECT_TRUE(bilinear["vs_baseline"]["val_loss"].contains("exceeds_spread"));
    EXPECT_FALSE(bilinear.contains("relation_accuracy"));  // a corpus file has no probe
}

TEST(CliTrain, BadVariantListsAreUsageErrors) {
    test::TempDir dir;
    const std::string out = (dir.path() / "x").string();
    for (const auto& [variants, message] :
         std::vector<std::pair<std::string, std::string>>{{"learned,bogus", "bogus"},
                                                          {"learned,learned", "twice"},
                                                          {"shared-qk", "baseline learned"}}) {
        const CliRun r = cli({"experiment", "--variants", variants, "--out", out});
        EXPECT_EQ(r.exitCode, 2) << variants;
        EXPECT_NE(r.err.find(message), std::string::npos) << r.err;
    }
    EXPECT_FALSE(std::filesystem::exists(dir.path() / "x"));
}

}  // namespace
}  // namespace qkv
