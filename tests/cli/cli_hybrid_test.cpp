// The command line on a hybrid model (Qwen3.5): each layer names its kind, a linear layer's heads
// give their implicit attention, gated attention's heads their output gate — as transformers'
// reference computes them.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "tests/cli/cli_run.h"
#include "tests/support/reference.h"
#include "tests/support/shared_assets.h"

namespace qkv {
namespace {

// As ForwardReference: float32 against transformers' float64 reference.
constexpr double kTolerance = 1e-4;

// `attention --json`'s layers for the reference's first sentence (every head, no scores), with
// the reference's results for it.
struct Attended {
    test::ModelReference reference;
    nlohmann::json layers;
    const test::ReferenceResult& expected() const {
        return reference.sentences.front().results.at("original");
    }
    std::vector<std::string> kinds() const {
        std::vector<std::string> k;
        for (const nlohmann::json& layer : layers) k.push_back(layer["kind"]);
        return k;
    }
};

Attended attendFirstSentence(const std::filesystem::path& shared, const std::string& name) {
    Attended a{test::loadReference(shared / "models" / name / "hf_reference.json"),
               nlohmann::json::array()};
    std::string ids;
    for (int id : a.reference.sentences.front().ids)
        ids += (ids.empty() ? "" : ",") + std::to_string(id);
    const test::CliRun r = test::cli({"attention", "--model", (shared / "models" / name).string(),
                                      "--ids", ids, "--no-scores", "--backend", "cpu", "--json"});
    EXPECT_EQ(r.exitCode, 0) << r.err;
    if (r.exitCode == 0) a.layers = r.json()["layers"];
    return a;
}

// A head's "attention" against the reference's matrix.
void expectMatrix(const nlohmann::json& actual, const test::ReferenceMatrix& expected) {
    for (int i = 0; i < expected.size; ++i)
        for (int j = 0; j < expected.cols; ++j)
            EXPECT_NEAR(actual[i][j].get<double>(), expected.at(i, j), kTolerance);
}

TEST(CliHybrid, AttentionJsonNamesKindsAndGivesImplicitMapsAndGates) {
    QKV_REQUIRE_SHARED(shared);
    const Attended run = attendFirstSentence(shared, "qwen3_5-random-tiny");
    const auto& expected = run.expected();
    const nlohmann::json& layers = run.layers;
    ASSERT_EQ(run.kinds(), (std::vector<std::string>{"linear_attention", "attention",
                                                     "linear_attention", "attention"}));
    for (int l = 0; l < 4; ++l) {
        SCOPED_TRACE("layer " + std::to_string(l));
        const bool linear = l % 2 == 0;
        for (size_t h = 0; h < layers[l]["heads"].size(); ++h) {
            const nlohmann::json& head = layers[l]["heads"][h];
            EXPECT_EQ(head.value("implicit", false), linear);
            EXPECT_EQ(head.contains("output_gate"), !linear);
            expectMatrix(head["attention"], expected.attentions.at(l).at(h));
            if (linear) continue;
            for (size_t t = 0; t < head["output_gate"].size(); ++t)
                EXPECT_NEAR(head["output_gate"][t].get<double>(),
                            expected.outputGates.at(l).at(h).at(t), kTolerance);
        }
    }
}

// The text output, scores included by default: a linear layer's heads print their implicit map
// (there are no scores to print), a full layer's heads their attention and scores.
TEST(CliHybrid, AttentionTextPrintsImplicitMapsWithoutScores) {
    QKV_REQUIRE_SHARED(shared);
    const auto folder = shared / "models" / "qwen3_5-random-tiny";
    for (const char* layer : {"0", "1"}) {
        const test::CliRun r =
            test::cli({"attention", "--model", folder.string(), "--ids", "3,14,15,9", "--layer",
                       layer, "--head", "0", "--backend", "cpu"});
        ASSERT_EQ(r.exitCode, 0) << r.err;
        const bool linear = std::string(layer) == "0";
        EXPECT_EQ(r.out.find("implicit attention") != std::string::npos, linear) << r.out;
        EXPECT_EQ(r.out.find("scores (scaled") != std::string::npos, !linear) << r.out;
    }
}

// Nemotron-H: a Mamba-2 layer's heads give their implicit attention M and skip D, an MLP block
// is a layer without heads; the attention layer's heads are softmax ones.
TEST(CliHybrid, MambaHeadsGiveTheirMapAndSkipAndMlpBlocksHaveNoHeads) {
    QKV_REQUIRE_SHARED(shared);
    const Attended run = attendFirstSentence(shared, "nemotron_h-random-tiny");
    const auto& expected = run.expected();
    const nlohmann::json& layers = run.layers;
    ASSERT_EQ(run.kinds(),
              (std::vector<std::string>{"mamba2", "moe", "mamba2", "attention", "mlp"}));
    for (int l = 0; l < 5; ++l) {
        SCOPED_TRACE("layer " + std::to_string(l));
        ASSERT_EQ(layers[l]["heads"].size(), expected.attentions.at(l).size());
        for (size_t h = 0; h < layers[l]["heads"].size(); ++h) {
            const nlohmann::json& head = layers[l]["heads"][h];
            const bool mamba = l == 0 || l == 2;
            EXPECT_EQ(head.value("implicit", false), mamba);
            EXPECT_EQ(head.contains("skip"), mamba);
            if (mamba) {  // 7 significant digits of values up to about 2.5
                EXPECT_NEAR(head["skip"].get<double>(), expected.skips.at(l).at(h), 2e-6);
            }
            expectMatrix(head["attention"], expected.attentions.at(l).at(h));
        }
    }
}

// LFM2: a short convolution is a layer without heads that gives its taps (each channel's
// weights on its last conv_L_cache tokens); the attention layers' heads match the reference.
TEST(CliHybrid, ShortConvolutionsGiveTheirTaps) {
    QKV_REQUIRE_SHARED(shared);
    const Attended run = attendFirstSentence(shared, "lfm2-random-tiny");
    const auto& expected = run.expected();
    ASSERT_EQ(run.kinds(), (std::vector<std::string>{"short_conv", "short_conv", "attention",
                                                     "short_conv", "attention"}));
    for (int l = 0; l < 5; ++l) {
        SCOPED_TRACE("layer " + std::to_string(l));
        const nlohmann::json& layer = run.layers[l];
        const bool conv = layer["kind"] == "short_conv";
        EXPECT_EQ(layer.contains("taps"), conv);
        if (!conv) {
            for (size_t h = 0; h < layer["heads"].size(); ++h)
                expectMatrix(layer["heads"][h]["attention"], expected.attentions.at(l).at(h));
            continue;
        }
        EXPECT_TRUE(layer["heads"].empty());
        ASSERT_EQ(layer["taps"].size(), expected.taps.at(l).size());
        for (size_t c = 0; c < layer["taps"].size(); ++c)
            for (size_t k = 0; k < 3; ++k)  // 7 significant digits of values up to about 2
                EXPECT_NEAR(layer["taps"][c][k].get<double>(), expected.taps.at(l)[c].at(k), 1e-6);
    }
}

// Falcon-H1: every layer is attention and Mamba-2 side by side; the Mamba heads come under
// "ssm_heads", each with its implicit map and skip D, as the reference computes them.
TEST(CliHybrid, FalconLayersGiveTheirAttentionAndTheirMambaHeads) {
    QKV_REQUIRE_SHARED(shared);
    const Attended run = attendFirstSentence(shared, "falcon_h1-random-tiny");
    const auto& expected = run.expected();
    ASSERT_EQ(run.kinds(), std::vector<std::string>(3, "attention+mamba2"));
    ASSERT_EQ(expected.besideAttentions.size(), 3u);
    for (int l = 0; l < 3; ++l) {
        SCOPED_TRACE("layer " + std::to_string(l));
        const nlohmann::json& layer = run.layers[l];
        ASSERT_EQ(layer["heads"].size(), expected.attentions.at(l).size());
        for (size_t h = 0; h < layer["heads"].size(); ++h)
            expectMatrix(layer["heads"][h]["attention"], expected.attentions.at(l).at(h));
        ASSERT_EQ(layer["ssm_heads"].size(), expected.besideAttentions.at(l).size());
        for (size_t h = 0; h < layer["ssm_heads"].size(); ++h) {
            const nlohmann::json& head = layer["ssm_heads"][h];
            EXPECT_TRUE(head.value("implicit", false));
            // 7 significant digits of values up to about 2.5
            EXPECT_NEAR(head["skip"].get<double>(), expected.skips.at(l).at(h), 2e-6);
            expectMatrix(head["attention"], expected.besideAttentions.at(l).at(h));
        }
    }
}

}  // namespace
}  // namespace qkv
