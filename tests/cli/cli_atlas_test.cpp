// qkvlab-cli atlas on the shipped model: the per-head table of a corpus, a run stopped at
// --max-tokens or killed and then resumed gives the one-shot run's atlas exactly, another
// corpus is refused for the same file, and bad input is named.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <fstream>
#include <thread>

#include "tests/cli/cli_run.h"
#include "tests/support/fixture_writer.h"

namespace qkv {
namespace {

const std::string kModel = std::string(QKV_RESOURCES_DIR) + "/models/qkv-stories-learned";

// `count` paragraphs; every third repeats an earlier one's words (duplicate and induction cells).
std::string corpusText(int count) {
    const char* sentences[] = {"The cat sat on the mat and the dog sat on the rug.",
                               "Mia gave Tom a red ball because Tom was sad.",
                               "A bird sang in the tall tree near the old house."};
    std::string text;
    for (int i = 0; i < count; ++i) {
        text += sentences[i % 3];
        if (i % 3 == 2) text += std::string(" ") + sentences[(i / 3) % 3];
        text += "\n\n";
    }
    return text;
}

std::filesystem::path writeCorpus(const test::TempDir& dir, int count) {
    const auto path = dir.path() / "corpus.txt";
    std::ofstream(path) << corpusText(count);
    return path;
}

nlohmann::json show(const std::filesystem::path& atlas) {
    const test::CliRun r = test::cli({"atlas", "--show", atlas.string(), "--json"});
    EXPECT_EQ(r.exitCode, 0) << r.err;
    return r.exitCode == 0 ? r.json() : nlohmann::json{};
}

// What --show --json says of an atlas but its file's name, and every score's examples.
nlohmann::json contents(const std::filesystem::path& atlas) {
    nlohmann::json doc = show(atlas);
    doc.erase("atlas");
    for (const auto& [score, value] : doc["heads"][0].items()) {
        if (score == "layer" || score == "head" || score == "kind" || score.starts_with("largest_"))
            continue;
        const test::CliRun top =
            test::cli({"atlas", "--show", atlas.string(), "--top", score, "--json"});
        EXPECT_EQ(top.exitCode, 0) << top.err;
        doc["examples_" + score] = top.json()["examples"];
    }
    return doc;
}

test::CliRun compute(const std::filesystem::path& corpus, const std::filesystem::path& atlas,
                     std::vector<std::string> extra = {}) {
    std::vector<std::string> args = {"atlas", "--model",      kModel,      "--corpus", corpus,
                                     "--out", atlas.string(), "--backend", "cpu"};
    args.insert(args.end(), extra.begin(), extra.end());
    return test::cli(args);
}

TEST(CliAtlas, EveryHeadOfTheShippedModelOverACorpus) {
    const test::TempDir dir;
    const auto corpus = writeCorpus(dir, 6);
    const auto atlas = dir.path() / "atlas.sqlite";
    const test::CliRun r = compute(corpus, atlas);
    ASSERT_EQ(r.exitCode, 0) << r.err;
    EXPECT_NE(r.out.find("6 documents"), std::string::npos) << r.out;
    const nlohmann::json doc = show(atlas);
    EXPECT_EQ(doc["documents"], 6);
    EXPECT_EQ(doc["sequences"], 6);             // each shorter than the context
    EXPECT_EQ(doc["options"]["context"], 128);  // the model's context, under the default 256
    EXPECT_EQ(doc["corpus"], corpus.string());
    EXPECT_EQ(doc["model_digest"].get<std::string>().size(), 64u);
    const nlohmann::json& heads = doc["heads"];
    ASSERT_EQ(heads.size(), 4u * 4u);  // the shipped model: 4 layers of 4 heads
    for (const nlohmann::json& h : heads) {
        EXPECT_EQ(h["kind"], "attention");
        for (const char* share :
             {"previous_token", "duplicate_token", "induction", "first_token", "self"}) {
            EXPECT_GE(h[share].get<double>(), 0.0) << share;
            EXPECT_LE(h[share].get<double>(), 1.0) << share;
        }
        EXPECT_GE(h["entropy"].get<double>(), 0.0);
        EXPECT_GE(h["score_symmetry"].get<double>(), -1.0);
        EXPECT_LE(h["score_symmetry"].get<double>(), 1.0);
    }
    const test::CliRun table = test::cli({"atlas", "--show", atlas.string()});
    ASSERT_EQ(table.exitCode, 0) << table.err;
    EXPECT_NE(table.out.find("induct"), std::string::npos) << table.out;
}

// Stopped at --max-tokens within the second block of documents, then run again: the same file
// as a run of the whole corpus at once, its sums to the last bit and its examples (the documents
// are added in the same order and grouping).
TEST(CliAtlas, AStoppedRunResumesToTheOneShotAtlas) {
    const test::TempDir dir;
    const auto corpus = writeCorpus(dir, 45);
    const auto whole = dir.path() / "whole.sqlite", parts = dir.path() / "parts.sqlite";
    const std::vector<std::string> config = {"--config", "shared-qk", "--examples", "2"};
    ASSERT_EQ(compute(corpus, whole, config).exitCode, 0);
    std::vector<std::string> stop = config;
    stop.insert(stop.end(), {"--max-tokens", "700"});
    const test::CliRun first = compute(corpus, parts, stop);
    ASSERT_EQ(first.exitCode, 0) << first.err;
    EXPECT_NE(first.err.find("stopped at --max-tokens"), std::string::npos) << first.err;
    const int stopped = show(parts)["documents"];
    EXPECT_GT(stopped, 32);  // past the first block (kAtlasBlock)
    EXPECT_LT(stopped, 45);
    const test::CliRun rest = compute(corpus, parts, config);
    ASSERT_EQ(rest.exitCode, 0) << rest.err;
    EXPECT_NE(rest.err.find("resumed after " + std::to_string(stopped) + " documents"),
              std::string::npos)
        << rest.err;
    EXPECT_EQ(contents(parts), contents(whole));
}

// Killed at any moment (SIGKILL, no chance to save), the file holds the documents of its last
// save and a second run completes it to the one-shot atlas: wherever the kill lands.
TEST(CliAtlas, AKilledRunResumesToTheOneShotAtlas) {
    const test::TempDir dir;
    const auto corpus = writeCorpus(dir, 60);
    const auto whole = dir.path() / "whole.sqlite", killed = dir.path() / "killed.sqlite";
    ASSERT_EQ(compute(corpus, whole).exitCode, 0);
    const pid_t child = fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
        execl(QKV_CLI_PATH, QKV_CLI_PATH, "atlas", "--model", kModel.c_str(), "--corpus",
              corpus.c_str(), "--out", killed.c_str(), "--backend", "cpu",
              static_cast<char*>(nullptr));
        _exit(127);
    }
    // Once the file exists (or the run ended), kill it wherever it is.
    bool ended = false;
    for (int i = 0; i < 2000 && !ended && !std::filesystem::exists(killed); ++i) {
        ended = waitpid(child, nullptr, WNOHANG) == child;
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    if (!ended) {
        kill(child, SIGKILL);
        waitpid(child, nullptr, 0);
    }
    const test::CliRun rest = compute(corpus, killed);
    ASSERT_EQ(rest.exitCode, 0) << rest.err;
    EXPECT_EQ(contents(killed), contents(whole));
}

// Without --corpus, the project's own stories (the training lab's 400 validation stories).
// --config scores each head's change against learned; --top SCORE gives each head's best
// examples: the query's token between ⟨ ⟩ after its context.
TEST(CliAtlas, TopExamplesAndConfigurationChanges) {
    const test::TempDir dir;
    const auto corpus = writeCorpus(dir, 6);
    const auto atlas = dir.path() / "atlas.sqlite";
    const test::CliRun r =
        compute(corpus, atlas, {"--config", "shared-qk q=K,k=Q,v=V", "--examples", "3"});
    ASSERT_EQ(r.exitCode, 0) << r.err;
    const nlohmann::json doc = show(atlas);
    EXPECT_EQ(doc["options"]["configurations"], (nlohmann::json{"shared-qk", "q=K,k=Q,v=V"}));
    for (const nlohmann::json& h : doc["heads"]) {
        const double mean = h["change_shared-qk"], largest = h["largest_change_shared-qk"];
        EXPECT_GT(mean, 0.0);
        EXPECT_LE(mean, largest);
        EXPECT_LE(largest, 1.0);
    }
    const test::CliRun top =
        test::cli({"atlas", "--show", atlas.string(), "--top", "previous_token", "--json"});
    ASSERT_EQ(top.exitCode, 0) << top.err;
    const nlohmann::json examples = top.json()["examples"];
    ASSERT_EQ(examples.size(), 16u * 3u);  // 16 heads, 3 each
    for (const nlohmann::json& e : examples) {
        EXPECT_GE(e["query"].get<int>(), 4);  // kFirstExampleQuery
        EXPECT_NE(e["context"].get<std::string>().find("⟨"), std::string::npos);
    }
    EXPECT_GE(examples[0]["value"].get<double>(), examples[1]["value"].get<double>());
    const test::CliRun text =
        test::cli({"atlas", "--show", atlas.string(), "--top", "score_symmetry"});
    EXPECT_NE(text.out.find("L3 H3   3"), std::string::npos) << text.out;
    const test::CliRun unknown = test::cli({"atlas", "--show", atlas.string(), "--top", "nope"});
    EXPECT_EQ(unknown.exitCode, 2);
    EXPECT_NE(unknown.err.find("change_q=K,k=Q,v=V"), std::string::npos) << unknown.err;
    // learned against itself is no comparison; the run stops before it makes a file.
    const auto refused = dir.path() / "refused.sqlite";
    const test::CliRun learned = compute(corpus, refused, {"--config", "learned"});
    EXPECT_NE(learned.exitCode, 0);
    EXPECT_NE(learned.err.find("compares configurations with learned"), std::string::npos);
    EXPECT_FALSE(std::filesystem::exists(refused));
    const test::CliRun twice = compute(corpus, refused, {"--config", "shared-qk q=Q,k=Q,v=V"});
    EXPECT_NE(twice.exitCode, 0);
    EXPECT_NE(twice.err.find("shared-qk is named twice"), std::string::npos) << twice.err;
    EXPECT_FALSE(std::filesystem::exists(refused));
}

TEST(CliAtlas, TheBuiltInStoriesAreTheDefaultCorpus) {
    const test::TempDir dir;
    const auto atlas = dir.path() / "atlas.sqlite";
    const test::CliRun r = test::cli({"atlas", "--model", kModel, "--out", atlas.string(),
                                      "--backend", "cpu", "--max-tokens", "300"});
    ASSERT_EQ(r.exitCode, 0) << r.err;
    const nlohmann::json doc = show(atlas);
    EXPECT_EQ(doc["corpus"], "builtin");
    EXPECT_GE(doc["tokens"].get<int>(), 300);
    EXPECT_GT(doc["documents"].get<int>(), 1);
}

TEST(CliAtlas, AnotherCorpusOrBadInputIsRefusedByName) {
    const test::TempDir dir;
    const auto corpus = writeCorpus(dir, 3);
    const auto atlas = dir.path() / "atlas.sqlite";
    ASSERT_EQ(compute(corpus, atlas).exitCode, 0);
    const auto other = dir.path() / "other.txt";
    std::ofstream(other) << "Another text altogether.\n";
    const test::CliRun refused = compute(other, atlas);
    EXPECT_NE(refused.exitCode, 0);
    EXPECT_NE(refused.err.find("is an atlas of another corpus (digest)"), std::string::npos)
        << refused.err;
    const test::CliRun context = compute(corpus, atlas, {"--context", "64"});
    EXPECT_NE(context.err.find("is an atlas of another options"), std::string::npos) << context.err;

    const auto jsonl = dir.path() / "bad.jsonl";
    std::ofstream(jsonl) << "{\"text\": \"fine\"}\n{\"title\": \"no text\"}\n";
    const test::CliRun badLine = compute(jsonl, dir.path() / "x.sqlite");
    EXPECT_NE(badLine.exitCode, 0);
    EXPECT_NE(badLine.err.find("JSON line 2 is not an object with a \"text\" string"),
              std::string::npos)
        << badLine.err;
    const auto empty = dir.path() / "empty.txt";
    std::ofstream(empty) << "\n\n  \n";
    EXPECT_NE(compute(empty, dir.path() / "y.sqlite").err.find("the corpus holds no text"),
              std::string::npos);
    const auto notAtlas = dir.path() / "not-an-atlas";
    std::ofstream(notAtlas) << "hello";
    const test::CliRun show = test::cli({"atlas", "--show", notAtlas.string(), "--json"});
    EXPECT_NE(show.exitCode, 0);
    EXPECT_NE(show.err.find("not a QKV Lab atlas"), std::string::npos) << show.err;
    EXPECT_NE(test::cli({"atlas", "--show", (dir.path() / "none").string()})
                  .err.find("no such atlas file"),
              std::string::npos);
}

}  // namespace
}  // namespace qkv
