// The relation probe, the experiment summary's statistics, a small experiment end to end
// (every run's log, the summary, resuming), and the shipped default models' vocabulary.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <regex>
#include <set>

#include "core/model/model.h"
#include "core/train/experiment.h"
#include "core/train/relation_probe.h"
#include "core/train/story_grammar.h"
#include "core/util/error.h"
#include "tests/support/fixture_writer.h"

namespace qkv::train {
namespace {

TEST(RelationProbe, PairsAreFixedDirectedAndDistinct) {
    const std::vector<RelationPair> pairs = relationPairs();
    ASSERT_EQ(pairs.size(), 322u);  // 80 give, chase, compare and network, 2 movie
    EXPECT_EQ(pairs[0].context, relationPairs()[0].context);
    std::map<std::string, int> kinds;
    std::set<std::string> items;
    for (const RelationPair& p : pairs) {
        ++kinds[p.kind];
        EXPECT_NE(p.right, p.foil);
        EXPECT_EQ(p.right[0], ' ');  // continuations start a new word
        items.insert(p.context + "|" + p.right);
    }
    EXPECT_EQ(kinds["give"], 80);
    EXPECT_EQ(kinds["movie"], 2);
    EXPECT_GT(items.size(), 250u);  // random names, few repeats
}

TEST(RelationProbe, TheCorpusTellsEveryKindTheRightWayRound) {
    std::string text;
    for (const std::string& story : generateStories(1, 3000)) text += story + "\n";
    for (const char* sentence :
         {"The movie was a box office bomb. Nobody went to see the movie.",
          "The bomb hit the movie theatre. The theatre burned down.",
          "trained a neural network. The network learned to read.", "joined a social network.",
          "Can you smell the smell of failure?", "sat on the mat because it was tired."})
        EXPECT_NE(text.find(sentence), std::string::npos) << sentence;
    EXPECT_TRUE(std::regex_search(text, std::regex("([A-Z][a-z]+) gave ([A-Z][a-z]+) the ([a-z]+), "
                                                   "and [a-zA-Z]+ thanked [a-zA-Z]+\\. \\2 has "
                                                   "the \\3 now\\.")));
}

TEST(RelationProbe, ScoresTheMoreProbableContinuation) {
    // Token ids: context [0, 1], right [2], foil [3]; a model that always prefers id 2 gets every
    // pair right, one that prefers 3 none.
    const std::vector<TokenizedRelation> pairs{{"a", {0, 1}, {2}, {3}}, {"b", {0, 1}, {2, 2}, {3}}};
    auto prefer = [](int id) {
        return [id](const std::vector<int>& ids) {
            std::vector<double> logp;
            for (std::size_t t = 1; t < ids.size(); ++t) logp.push_back(ids[t] == id ? -0.1 : -3.0);
            return logp;
        };
    };
    EXPECT_EQ(scoreRelations(pairs, prefer(2)).accuracy, 1.0);
    const RelationScore none = scoreRelations(pairs, prefer(3));
    EXPECT_EQ(none.accuracy, 0.0);
    EXPECT_EQ(none.pairs, 2);
    EXPECT_EQ(none.accuracyByKind.at("b"), 0.0);
}

TEST(RelationProbe, PickLogProbabilitiesIsTheLogSoftmax) {
    const std::vector<float> logits{1.0f, 2.0f, 3.0f, 0.0f, 0.0f, 0.0f};
    const std::vector<double> logp = pickLogProbabilities(logits.data(), 3, {2, 1});
    const double z = std::exp(1.0) + std::exp(2.0) + std::exp(3.0);
    EXPECT_NEAR(logp[0], 3.0 - std::log(z), 1e-6);
    EXPECT_NEAR(logp[1], -std::log(3.0), 1e-6);
}

TEST(ExperimentSummary, SpreadIsTheSampleStatistics) {
    const Spread s = spreadOf({1.0, 2.0, std::nullopt, 4.0});
    EXPECT_EQ(s.count, 3);
    EXPECT_DOUBLE_EQ(s.mean, 7.0 / 3);
    EXPECT_NEAR(s.sd,
                std::sqrt(((1 - 7.0 / 3) * (1 - 7.0 / 3) + (2 - 7.0 / 3) * (2 - 7.0 / 3) +
                           (4 - 7.0 / 3) * (4 - 7.0 / 3)) /
                          2),
                1e-15);
    EXPECT_EQ(s.min, 1.0);
    EXPECT_EQ(s.max, 4.0);
    EXPECT_EQ(spreadOf({5.0}).sd, 0.0);
    EXPECT_EQ(spreadOf({}).count, 0);
}

TEST(ExperimentSummary, PairedDifferencesAgainstTheSeedSpread) {
    // Per seed +0.10, +0.11, +0.09 over a baseline that varies by about 0.01: exceeds.
    const PairedDifference clear = pairedDifference({1.10, 1.21, 1.09}, {1.00, 1.10, 1.00});
    EXPECT_NEAR(clear.difference.mean, 0.10, 1e-12);
    EXPECT_NEAR(clear.difference.sd, 0.01, 1e-12);
    EXPECT_TRUE(clear.exceedsSpread);
    // The same mean difference inside a seed-to-seed spread of 0.2: does not.
    const PairedDifference noisy = pairedDifference({1.10, 1.51, 0.79}, {1.00, 1.40, 0.70});
    EXPECT_NEAR(noisy.difference.mean, 0.10, 1e-12);
    EXPECT_FALSE(noisy.exceedsSpread);
    // Only seeds both have are paired.
    EXPECT_EQ(pairedDifference({1.0, std::nullopt}, {0.5, 0.7}).difference.count, 1);
}

// Two variants x two seeds on a small corpus file, 12 steps each.
class ExperimentRunTest : public ::testing::Test {
  protected:
    test::TempDir dir;
    ExperimentPlan plan;

    void SetUp() override {
        const auto corpus = dir.path() / "stories.txt";
        std::ofstream out(corpus);
        for (const std::string& story : generateStories(11, 200)) out << story << "\n\n";
        out.close();
        plan.layout = {{"learned", "shared-qk-reformer"}, {1, 2}, "learned"};
        TrainingOptions& o = plan.run.options;
        o.shape.layers = 1;
        o.shape.heads = 2;
        o.shape.dModel = 16;
        o.shape.context = 16;
        o.batchSize = 4;
        o.steps = 12;
        o.threads = 1;
        plan.run.corpus = corpus.string();
        plan.run.vocabSize = 300;
        plan.outputDir = dir.path() / "experiment";
        plan.parallelRuns = 2;
        plan.command = "qkvlab-cli experiment --test";
    }
};

TEST_F(ExperimentRunTest, WritesEveryRunsLogAndTheSummary) {
    std::vector<std::string> finished;
    ExperimentCallbacks callbacks;
    callbacks.onRunFinished = [&](const ExperimentRun& run, int done, int total) {
        EXPECT_EQ(total, 4);
        EXPECT_FALSE(run.reused);
        finished.push_back(run.variant + std::to_string(run.seed));
        EXPECT_EQ(done, static_cast<int>(finished.size()));
    };
    const ExperimentResult result = runExperiment(plan, callbacks);
    EXPECT_EQ(finished.size(), 4u);
    for (const char* variant : {"learned", "shared-qk-reformer"})
        for (int seed : {1, 2}) {
            const auto folder = runFolder(plan.outputDir, variant, seed);
            EXPECT_TRUE(std::filesystem::exists(folder / "training_log.json"));
            EXPECT_FALSE(std::filesystem::exists(folder / "model.safetensors"));
            EXPECT_FALSE(std::filesystem::exists(folder / "vocab.json"));
        }
    std::ifstream in(plan.outputDir / "summary.json");
    const auto summary = nlohmann::json::parse(in);
    EXPECT_EQ(summary, nlohmann::json(result.summary));
    EXPECT_EQ(summary["format"], "qkvlab-experiment");
    EXPECT_EQ(summary["version"], 1);
    ASSERT_EQ(summary["variants"].size(), 2u);
    EXPECT_TRUE(summary["missing_runs"].empty());
    // The summary's numbers are the logs' numbers.
    const auto& reformer = summary["variants"][1];
    std::vector<std::optional<double>> losses, baseline;
    for (int seed : {1, 2}) {
        for (auto [name, target] :
             {std::pair{"shared-qk-reformer", &losses}, std::pair{"learned", &baseline}}) {
            std::ifstream log(runFolder(plan.outputDir, name, seed) / "training_log.json");
            target->push_back(nlohmann::json::parse(log)["final"]["val_loss"].get<double>());
        }
    }
    EXPECT_DOUBLE_EQ(reformer["val_loss"]["mean"].get<double>(), spreadOf(losses).mean);
    EXPECT_DOUBLE_EQ(reformer["val_loss"]["sd"].get<double>(), spreadOf(losses).sd);
    EXPECT_DOUBLE_EQ(reformer["vs_baseline"]["val_loss"]["mean"].get<double>(),
                     pairedDifference(losses, baseline).difference.mean);
    EXPECT_FALSE(summary["variants"][0].contains("vs_baseline"));
    EXPECT_NE(std::ifstream(plan.outputDir / "summary.md").peek(), EOF);

    // Seed s trains every variant on the same batches: the first entry's training loss differs
    // only by the attention, and seeds differ.
    std::ifstream a(runFolder(plan.outputDir, "learned", 1) / "training_log.json"),
        b(runFolder(plan.outputDir, "learned", 2) / "training_log.json");
    EXPECT_NE(nlohmann::json::parse(a)["final"]["val_loss"],
              nlohmann::json::parse(b)["final"]["val_loss"]);
}

TEST_F(ExperimentRunTest, ResumesFromFinishedRuns) {
    runExperiment(plan, {});
    const auto log = runFolder(plan.outputDir, "learned", 2) / "training_log.json";
    const auto written = std::filesystem::last_write_time(log);
    // One run lost: only it is trained again.
    std::filesystem::remove(runFolder(plan.outputDir, "shared-qk-reformer", 1) /
                            "training_log.json");
    int reused = 0, trained = 0;
    ExperimentCallbacks callbacks;
    callbacks.onRunFinished = [&](const ExperimentRun& run, int, int) {
        (run.reused ? reused : trained)++;
    };
    runExperiment(plan, callbacks);
    EXPECT_EQ(reused, 3);
    EXPECT_EQ(trained, 1);
    EXPECT_EQ(std::filesystem::last_write_time(log), written);
    // A different command is a different experiment: nothing is reused.
    plan.command += " --steps 12";
    reused = trained = 0;
    plan.layout.seeds = {1};
    runExperiment(plan, callbacks);
    EXPECT_EQ(reused, 0);
    EXPECT_EQ(trained, 2);
}

TEST_F(ExperimentRunTest, AnUnknownVariantStopsBeforeAnyTraining) {
    plan.layout.variants = {"learned", "no-such"};
    EXPECT_THROW(runExperiment(plan, {}), Error);
    EXPECT_FALSE(std::filesystem::exists(plan.outputDir / "learned"));
}

// Equal JSON, numbers to 1e-12 relative: builds with and without FMA contraction (release with
// -march=native, the sanitizer build without) round the sums of squares differently in the
// last bit.
void expectJsonNear(const nlohmann::ordered_json& a, const nlohmann::ordered_json& b,
                    const std::string& where) {
    if (a.is_number() && b.is_number()) {
        const double x = a.get<double>(), y = b.get<double>();
        EXPECT_LE(std::abs(x - y), 1e-12 * std::max({1.0, std::abs(x), std::abs(y)})) << where;
        return;
    }
    ASSERT_EQ(a.type(), b.type()) << where;
    if (a.is_object()) {
        ASSERT_EQ(a.size(), b.size()) << where;
        for (auto it = a.begin(); it != a.end(); ++it) {
            ASSERT_TRUE(b.contains(it.key())) << where << "." << it.key();
            expectJsonNear(it.value(), b[it.key()], where + "." + it.key());
        }
    } else if (a.is_array()) {
        ASSERT_EQ(a.size(), b.size()) << where;
        for (std::size_t i = 0; i < a.size(); ++i)
            expectJsonNear(a[i], b[i], where + "[" + std::to_string(i) + "]");
    } else {
        EXPECT_EQ(a, b) << where;
    }
}

// The shipped experiment's summary is what its logs say, and every run logged step 0 and at
// least ten evaluations.
TEST(ShippedExperiment, SummaryIsTheSummaryOfItsLogs) {
    const std::filesystem::path dir =
        std::filesystem::path(QKV_RESOURCES_DIR) / "experiments" / "attention-variants";
    if (!std::filesystem::exists(dir / "summary.json"))
        GTEST_SKIP() << "no shipped experiment (scripts/train-experiment.sh makes it)";
    std::ifstream in(dir / "summary.json");
    const auto shipped = nlohmann::ordered_json::parse(in);
    ExperimentLayout layout;
    for (const auto& v : shipped["variants"]) layout.variants.push_back(v["name"]);
    layout.seeds = shipped["seeds"].get<std::vector<std::uint64_t>>();
    layout.baseline = shipped["baseline"];
    EXPECT_EQ(layout.variants.size(), AttentionTying::names().size());
    expectJsonNear(summarizeExperiment(dir, layout, shipped["command"]), shipped, "summary");
    EXPECT_TRUE(shipped["missing_runs"].empty());
    for (const std::string& variant : layout.variants)
        for (std::uint64_t seed : layout.seeds) {
            std::ifstream log(runFolder(dir, variant, seed) / "training_log.json");
            const auto steps = nlohmann::json::parse(log)["steps"];
            EXPECT_EQ(steps.front()["step"], 0) << variant << " " << seed;
            EXPECT_GE(steps.size(), 11u) << variant << " " << seed;
        }
}

// Every example sentence the app offers is spelled in words by each shipped model: a word is
// one token, never letters (the GPT-2 pre-tokenizer's pieces of ASCII text are " word", "word"
// and punctuation runs).
TEST(DefaultModels, TokenizeEveryExampleSentenceIntoWords) {
    const std::filesystem::path resources = QKV_RESOURCES_DIR;
    std::ifstream examples(resources / "examples" / "sentences.txt");
    ASSERT_TRUE(examples) << "resources/examples/sentences.txt";
    std::vector<std::string> sentences;
    for (std::string line; std::getline(examples, line);)
        if (!line.empty()) sentences.push_back(line);
    ASSERT_GE(sentences.size(), 5u);
    const std::regex piece(" ?[A-Za-z]+| ?[^A-Za-z ]+");
    int models = 0;
    for (const char* variant : {"learned", "shared-qk", "tied-kv", "single-w"}) {
        const auto folder = resources / "models" / (std::string("qkv-stories-") + variant);
        if (!std::filesystem::exists(folder)) continue;
        ++models;
        const auto model = Model::openTokenizerOnly(folder);
        for (const std::string& sentence : sentences) {
            std::vector<std::string> words;
            for (auto it = std::sregex_iterator(sentence.begin(), sentence.end(), piece);
                 it != std::sregex_iterator(); ++it)
                words.push_back(it->str());
            const std::vector<Token> ids = model->tokenize(sentence);
            EXPECT_EQ(ids.size(), words.size()) << variant << ": \"" << sentence << "\"";
        }
    }
    if (models == 0) GTEST_SKIP() << "no shipped models (scripts/train-defaults.sh makes them)";
}

}  // namespace
}  // namespace qkv::train
