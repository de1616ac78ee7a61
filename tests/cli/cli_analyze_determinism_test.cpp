// analyze's weight numbers are one set of numbers however they are asked for: as JSON twice in
// a row, with and without token ids (which add only the sentence's own numbers), and as the
// table's medians. DeepSeek's whole-layer form once differed between all of these.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string>

#include "tests/cli/cli_run.h"
#include "tests/support/reference.h"
#include "tests/support/shared_assets.h"
#include "tests/support/shared_models.h"

namespace qkv {
namespace {

using test::cli;
using test::CliRun;

// The JSON without what the sentence adds: its ids, tokens and each head's numbers of its
// scores, sinks, mask and sparse attention's indexer.
nlohmann::json weightNumbers(nlohmann::json doc) {
    doc.erase("ids");
    doc.erase("tokens");
    doc.erase("target_ids");
    doc.erase("target_tokens");
    auto strip = [](nlohmann::json& block) {
        for (auto& layer : block["layers"])
            for (auto& head : layer["heads"]) {
                head.erase("score_symmetry");
                head.erase("sink_share");
                head.erase("dropped_mass");
                head.erase("indexer_agreement");
            }
    };
    if (doc.contains("layers")) strip(doc);
    for (const char* block : {"encoder", "decoder", "cross"})
        if (doc.contains(block)) strip(doc[block]);
    return doc;
}

std::string joined(const std::vector<int>& ids) {
    std::string text;
    for (int id : ids) text += (text.empty() ? "" : ",") + std::to_string(id);
    return text;
}

TEST(CliAnalyze, TheSameNumbersAsJsonTwiceWithIdsAndAsATable) {
    QKV_REQUIRE_SHARED(shared);
    for (const std::string& name : test::supportedSharedModelNames(shared)) {
        SCOPED_TRACE(name);
        const std::string folder = (shared / "models" / name).string();
        const auto sentence =
            test::loadReference(shared / "models" / name / "hf_reference.json").sentences.front();
        const bool encoderDecoder = !sentence.decoderIds.empty();
        const std::vector<std::string> base{"analyze", "--model", folder, "--backend", "cpu"};
        auto run = [&](std::vector<std::string> extra) {
            std::vector<std::string> args = base;
            args.insert(args.end(), extra.begin(), extra.end());
            CliRun r = cli(args);
            EXPECT_EQ(r.exitCode, 0) << r.err;
            return r;
        };
        const nlohmann::json first = run({"--json"}).json();
        EXPECT_EQ(run({"--json"}).json(), first) << "a second run differs";
        std::vector<std::string> withIds{"--ids", joined(sentence.ids), "--json"};
        if (encoderDecoder)
            withIds.insert(withIds.end(), {"--target-ids", joined(sentence.decoderIds)});
        EXPECT_EQ(weightNumbers(run(withIds).json()), weightNumbers(first))
            << "token ids changed the weight numbers";
        if (encoderDecoder) continue;  // its table has a block per kind
        // The table prints the medians to four decimals: half of the last digit, and the
        // JSON's own float32 rounding.
        constexpr double kPrinted = 0.5e-4 + 1e-7;
        const std::string table = run({}).out;
        double symmetry = 0, directionality = 0;
        const auto at = table.find("median layer W_QK symmetry");
        ASSERT_NE(at, std::string::npos) << table;
        ASSERT_EQ(
            std::sscanf(table.c_str() + at, "median layer W_QK symmetry %lf, directionality %lf",
                        &symmetry, &directionality),
            2);
        EXPECT_NEAR(symmetry, first["median_layer_wqk_symmetry"].get<double>(), kPrinted);
        EXPECT_NEAR(directionality, first["median_layer_wqk_directionality"].get<double>(),
                    kPrinted);
    }
}

// On a terminal the progress line names the stack only where a model has several.
TEST(CliAnalyze, ProgressNamesTheStackOnlyWhereThereAreSeveral) {
    QKV_REQUIRE_SHARED(shared);
    if (std::system("command -v script >/dev/null 2>&1") != 0)
        GTEST_SKIP() << "util-linux's script (a terminal for the progress line) is not installed";
    auto progressOf = [&](const char* model) {
        return test::cliOnTerminal({"analyze", "--no-copying-score", "--model",
                                    (shared / "models" / model).string()})
            .out;
    };
    const std::string decoderOnly = progressOf("gpt2-random-tiny");
    EXPECT_NE(decoderOnly.find("analyze: layer 1 of 2"), std::string::npos) << decoderOnly;
    EXPECT_EQ(decoderOnly.find("encoder"), std::string::npos) << decoderOnly;
    const std::string encoderDecoder = progressOf("t5-random-tiny");
    EXPECT_NE(encoderDecoder.find("analyze encoder: layer"), std::string::npos) << encoderDecoder;
    EXPECT_NE(encoderDecoder.find("analyze cross: layer"), std::string::npos) << encoderDecoder;
}

}  // namespace
}  // namespace qkv
