// qkvlab-cli python: the script it prints for a folder, its usage errors, and, where python3 has
// torch and transformers, the script run against `qkvlab-cli attention --json` on the shared
// reference models.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "tests/cli/cli_run.h"
#include "tests/support/fixture_writer.h"
#include "tests/support/python3.h"
#include "tests/support/shared_assets.h"
#include "tests/support/shared_models.h"

namespace qkv {
namespace {

using test::cli;
using test::CliRun;

bool contains(const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
}

TEST(CliPython, PrintsTheScriptForAFolderWithItsIdsHeadAndConfiguration) {
    test::TempDir dir;
    const auto folder = std::filesystem::absolute(dir.path() / "gpt2");
    test::writeTinyGpt2(folder);
    const CliRun r = cli({"python", "--model", folder.string(), "--ids", "1,2,3,4,5", "--layer",
                          "1", "--head", "2", "--config", "shared-qk"});
    ASSERT_EQ(r.exitCode, 0) << r.err;
    EXPECT_TRUE(contains(
        r.out, "from_pretrained(\n    \"" + folder.string() + "\", attn_implementation=\"eager\")"))
        << r.out;
    EXPECT_TRUE(contains(r.out, "input_ids = torch.tensor([[1, 2, 3, 4, 5]])\n")) << r.out;
    EXPECT_TRUE(contains(r.out, "assign(k, learned_q)  # K := Q\n")) << r.out;
    EXPECT_TRUE(contains(r.out, "matrix = outputs.attentions[1][0, 2].numpy()\n")) << r.out;

    const CliRun refused = cli({"python", "--model", folder.string(), "--ids", "1,2,3", "--config",
                                "learned", "--mask-self"});
    ASSERT_EQ(refused.exitCode, 0) << refused.err;
    EXPECT_TRUE(contains(refused.out, "raise SystemExit(")) << refused.out;
}

TEST(CliPython, UsageErrors) {
    test::TempDir dir;
    test::writeTinyGpt2(dir.path());
    const std::string model = dir.path().string();
    CliRun r = cli({"python", "--model", model, "--ids", "1,2", "--block", "cross"});
    EXPECT_EQ(r.exitCode, 2);
    EXPECT_TRUE(contains(r.err, "encoder-decoder")) << r.err;
    r = cli({"python", "--model", model, "--ids", "1,2", "--head", "4"});
    EXPECT_EQ(r.exitCode, 2) << r.err;
    r = cli({"python", "--model", model, "--ids", "1,2", "--block", "sideways"});
    EXPECT_EQ(r.exitCode, 2) << r.err;
}

TEST(CliPython, EncoderDecoderBlocks) {
    test::TempDir dir;
    test::writeTinyBart(dir.path());
    const CliRun r = cli({"python", "--model", dir.path().string(), "--ids", "5,6,7",
                          "--target-ids", "2,8", "--block", "cross", "--layer", "1"});
    ASSERT_EQ(r.exitCode, 0) << r.err;
    EXPECT_TRUE(contains(r.out, "from transformers import AutoModelForSeq2SeqLM\n")) << r.out;
    EXPECT_TRUE(contains(r.out, "decoder_input_ids = torch.tensor([[2, 8]])\n")) << r.out;
    EXPECT_TRUE(contains(r.out, "outputs.cross_attentions[1][0, 0]")) << r.out;
}

std::vector<std::vector<double>> readCsv(const std::filesystem::path& file) {
    std::vector<std::vector<double>> rows;
    std::ifstream in(file);
    for (std::string line; std::getline(in, line);) {
        std::vector<double> row;
        std::stringstream cells(line);
        for (std::string cell; std::getline(cells, cell, ',');) row.push_back(std::stod(cell));
        rows.push_back(row);
    }
    return rows;
}

// The script's matrix equals QKV Lab's under every configuration copying can reproduce.
TEST(CliPython, ScriptsMatchQkvLabUnderTransformers) {
    QKV_REQUIRE_SHARED(shared);
    QKV_REQUIRE_PYTHON3();
    test::TempDir dir;
    if (!test::python3Imports("numpy torch transformers", dir.path()))
        GTEST_SKIP() << test::python3Path()
                     << " lacks numpy, torch or transformers: the generated scripts were not run "
                        "against Hugging Face transformers";
    int compared = 0;
    for (const std::string& name : test::supportedSharedModelNames(shared)) {
        const std::string model = (shared / "models" / name).string();
        for (const char* config : {"learned", "shared-qk", "tied-kv", "single-w", "q=K,k=Q,v=V"}) {
            SCOPED_TRACE(name + " " + config);
            const std::vector<std::string> common = {"--model",  model, "--ids",  "1,2,3,4,5",
                                                     "--layer",  "1",   "--head", "1",
                                                     "--config", config};
            std::vector<std::string> python = {"python"};
            python.insert(python.end(), common.begin(), common.end());
            const CliRun script = cli(python);
            // Configurations latent attention does not define are refused (LatentAttention).
            if (script.exitCode != 0 &&
                contains(script.err, "is not defined for multi-head latent attention"))
                continue;
            ASSERT_EQ(script.exitCode, 0) << script.err;
            if (contains(script.out, "raise SystemExit(")) continue;  // GQA: refused, by design
            const auto path = dir.path() / "check.py";
            std::ofstream(path) << script.out;
            const auto csv = dir.path() / "matrix.csv";
            const test::PythonRun run =
                test::runPython3({path.string(), csv.string()}, dir.path() / "run.log");
            ASSERT_EQ(run.exitCode, 0) << run.output;

            std::vector<std::string> attention = {"attention", "--json", "--no-scores"};
            attention.insert(attention.end(), common.begin(), common.end());
            const CliRun ours = cli(attention);
            ASSERT_EQ(ours.exitCode, 0) << ours.err;
            const auto doc = ours.json();
            const auto& layers = doc.contains("layers") ? doc["layers"] : doc["encoder_layers"];
            const auto& expected = layers[0]["heads"][0]["attention"];
            const auto actual = readCsv(csv);
            ASSERT_EQ(actual.size(), expected.size());
            for (size_t i = 0; i < actual.size(); ++i) {
                ASSERT_EQ(actual[i].size(), expected[i].size());
                for (size_t j = 0; j < actual[i].size(); ++j)
                    EXPECT_NEAR(actual[i][j], expected[i][j].get<double>(), 1e-4)
                        << "row " << i << ", column " << j;
            }
            ++compared;
        }
    }
    EXPECT_GT(compared, 0);
}

}  // namespace
}  // namespace qkv
