// qkvlab-cli end to end: each command's JSON, its table output, and the exit codes and one-line
// messages of bad input. Runs the built binary on the project's tiny fixtures and, when present,
// on the shared reference models.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "tests/cli/cli_run.h"
#include "tests/support/fixture_writer.h"
#include "tests/support/mxfp4_fixture.h"
#include "tests/support/reference.h"
#include "tests/support/shared_assets.h"
#include "tests/support/shared_models.h"

namespace qkv {
namespace {

using test::cli;
using test::CliRun;
using test::pngSize;

class CliFixture : public testing::Test {
  protected:
    void SetUp() override { test::writeTinyGpt2(m_dir.path() / "gpt2"); }
    std::string model() const { return (m_dir.path() / "gpt2").string(); }
    test::TempDir m_dir;
};

TEST_F(CliFixture, InfoJson) {
    const CliRun r = cli({"info", "--model", model(), "--json"});
    ASSERT_EQ(r.exitCode, 0) << r.err;
    const auto doc = r.json();
    EXPECT_EQ(doc["architecture"], "gpt2");
    EXPECT_EQ(doc["layers"], 2);
    EXPECT_EQ(doc["heads"], 4);
    EXPECT_EQ(doc["d_model"], 32);
    EXPECT_EQ(doc["d_k"], 8);
    EXPECT_EQ(doc["tokenizer"], false);
    EXPECT_TRUE(doc.contains("parameters"));
    const CliRun table = cli({"info", "--model", model()});
    EXPECT_NE(table.out.find("d_k            8"), std::string::npos) << table.out;
}

TEST_F(CliFixture, AttentionJsonForAllHeadsAndOneHead) {
    CliRun r = cli({"attention", "--model", model(), "--ids", "1,2,3,4,5", "--json"});
    ASSERT_EQ(r.exitCode, 0) << r.err;
    auto doc = r.json();
    EXPECT_EQ(doc["config"], "learned");
    EXPECT_EQ(doc["ids"], (std::vector<int>{1, 2, 3, 4, 5}));
    ASSERT_EQ(doc["layers"].size(), 2u);
    ASSERT_EQ(doc["layers"][0]["heads"].size(), 4u);
    const auto& attention = doc["layers"][1]["heads"][3]["attention"];
    ASSERT_EQ(attention.size(), 5u);
    for (const auto& row : attention) {
        double sum = 0;
        for (double v : row) sum += v;
        EXPECT_NEAR(sum, 1.0, 1e-5);
    }
    EXPECT_EQ(attention[0][1], 0.0);  // causal
    EXPECT_TRUE(doc["layers"][1]["heads"][3].contains("scores"));
    EXPECT_FALSE(doc["layers"][0].contains("layer"));

    r = cli({"attention", "--model", model(), "--ids", "1,2,3", "--layer", "1", "--head", "2",
             "--no-scores", "--config", "shared-qk", "--json"});
    ASSERT_EQ(r.exitCode, 0) << r.err;
    doc = r.json();
    EXPECT_EQ(doc["config"], "shared-qk");
    ASSERT_EQ(doc["layers"].size(), 1u);
    EXPECT_EQ(doc["layers"][0]["layer"], 1);
    ASSERT_EQ(doc["layers"][0]["heads"].size(), 1u);
    EXPECT_EQ(doc["layers"][0]["heads"][0]["head"], 2);
    EXPECT_FALSE(doc["layers"][0]["heads"][0].contains("scores"));
}

// --vectors gives the rows each slot used: q k^T / sqrt(d_k) is the head's score matrix.
TEST_F(CliFixture, AttentionVectorsMakeTheScores) {
    const CliRun r = cli({"attention", "--model", model(), "--ids", "1,2,3,4", "--layer", "1",
                          "--head", "2", "--vectors", "--json"});
    ASSERT_EQ(r.exitCode, 0) << r.err;
    const auto doc = r.json();
    const auto& head = doc["layers"][0]["heads"][0];
    const auto q = head["q"].get<std::vector<std::vector<double>>>();
    const auto k = head["k"].get<std::vector<std::vector<double>>>();
    const auto scores = head["scores"].get<std::vector<std::vector<double>>>();
    ASSERT_EQ(q.size(), 4u);
    ASSERT_EQ(k.size(), 4u);
    EXPECT_EQ(head["v"].size(), 4u);
    for (size_t i = 0; i < 4; ++i)
        for (size_t j = 0; j < 4; ++j) {
            double dot = 0;
            for (size_t c = 0; c < q[i].size(); ++c) dot += q[i][c] * k[j][c];
            // JSON keeps 7 significant digits of each number.
            EXPECT_NEAR(dot / std::sqrt(static_cast<double>(q[i].size())), scores[i][j],
                        1e-5 * (1 + std::abs(scores[i][j])));
        }
    EXPECT_FALSE(cli({"attention", "--model", model(), "--ids", "1,2", "--json"})
                     .json()["layers"][0]["heads"][0]
                     .contains("q"));
}

TEST_F(CliFixture, AnalyzeSharedQkIsSymmetric) {
    const CliRun r = cli(
        {"analyze", "--model", model(), "--config", "shared-qk", "--ids", "4,8,15,16", "--json"});
    ASSERT_EQ(r.exitCode, 0) << r.err;
    const auto doc = r.json();
    EXPECT_NEAR(doc["median_layer_wqk_symmetry"].get<double>(), 1.0, 1e-6);
    // shared-qk: W_Q W_Q^T is symmetric, so no row or column stands out more than its twin.
    EXPECT_NEAR(doc["median_layer_wqk_directionality"].get<double>(), 0.0, 1e-6);
    for (const auto& layer : doc["layers"]) {
        EXPECT_NEAR(layer["wqk_directionality"].get<double>(), 0.0, 1e-6);
        for (const auto& head : layer["heads"]) {
            EXPECT_NEAR(head["wqk_symmetry"].get<double>(), 1.0, 1e-6);
            EXPECT_NEAR(head["wqk_directionality"].get<double>(), 0.0, 1e-6);
            EXPECT_LE(head["ov_rank"].get<int>(), 8);
            EXPECT_EQ(head["ov_singular_values"].size(), 8u);
            EXPECT_GE(head["ov_copying_score"].get<double>(), -1.0);
            EXPECT_LE(head["ov_copying_score"].get<double>(), 1.0);
            EXPECT_NEAR(head["score_symmetry"].get<double>(), 1.0, 1e-5);
            EXPECT_LE(head["wqk_rank"].get<int>(), 8);
            EXPECT_EQ(head["wqk_singular_values"].size(), 8u);
        }
    }
    const CliRun noText = cli({"analyze", "--model", model(), "--json"});
    ASSERT_EQ(noText.exitCode, 0) << noText.err;
    EXPECT_FALSE(noText.json()["layers"][0]["heads"][0].contains("score_symmetry"));
}

TEST_F(CliFixture, InputLongerThanTheContext) {
    std::string ids = "1";
    for (int i = 0; i < 20; ++i) ids += ",2";  // 21 tokens, context 16
    CliRun r = cli({"attention", "--model", model(), "--ids", ids, "--json"});
    EXPECT_EQ(r.exitCode, 1);
    EXPECT_NE(r.err.find("21 tokens"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("--truncate"), std::string::npos) << r.err;
    r = cli({"tokenize", "--model", model(), "--ids", ids, "--truncate", "--json"});
    ASSERT_EQ(r.exitCode, 0) << r.err;
    EXPECT_EQ(r.json()["truncated_from"], 21);
    EXPECT_EQ(r.json()["ids"].size(), 16u);
    EXPECT_NE(r.err.find("truncated from 21 to 16"), std::string::npos);
}

TEST_F(CliFixture, RenderOfAHugeViewSaysItsReducedScaleOrRefuses) {
#ifndef QKV_CLI_HAS_RENDER
    GTEST_SKIP() << "qkvlab-cli was built without the GUI (QKV_BUILD_GUI=OFF), so it has no render";
#endif
    const auto out = m_dir.path() / "head.png";
    auto render = [&](const std::string& width, const std::string& height) {
        return cli({"render", "--model", model(), "--ids", "1,2,3", "--out", out.string(),
                    "--width", width, "--height", height});
    };
    CliRun r = render("1000", "820");
    ASSERT_EQ(r.exitCode, 0) << r.err;
    EXPECT_EQ(r.out, "wrote " + out.string() + "\n");
    EXPECT_EQ(pngSize(out), std::make_pair(2000u, 1640u));

    // 20 megapixels at 2x would be 80: drawn at 1.34x, just under the 36 megapixel cap, and said.
    r = render("5000", "4000");
    ASSERT_EQ(r.exitCode, 0) << r.err;
    EXPECT_NE(r.out.find("drawn at 1.34× instead of 2× to stay within 36 megapixels"),
              std::string::npos)
        << r.out;
    EXPECT_EQ(pngSize(out), std::make_pair(6700u, 5360u));

    // 49 megapixels do not fit even at 1x: refused, and the previous picture is left intact.
    r = render("7000", "7000");
    EXPECT_EQ(r.exitCode, 1);
    EXPECT_NE(r.err.find("larger than the 36 megapixels"), std::string::npos) << r.err;
    EXPECT_EQ(pngSize(out), std::make_pair(6700u, 5360u));
}

TEST_F(CliFixture, ErrorsAreOneLineWithExitCodes) {
    struct Case {
        std::vector<std::string> args;
        int exitCode;
        std::string fragment;
    };
    const std::vector<Case> cases = {
        {{}, 2, ""},
        {{"bogus"}, 2, "unknown command 'bogus'"},
        {{"info"}, 2, "missing required option '--model'"},
        {{"info", "--model"}, 2, "needs a value"},
        {{"info", "--model", model(), "--frobnicate"}, 2, "unknown option '--frobnicate'"},
        {{"info", "--model", "/nonexistent/model"}, 1, "/nonexistent/model: not a folder"},
        {{"attention", "--model", model(), "--text", "hi", "--ids", "1"}, 2, "exactly one of"},
        {{"attention", "--model", model(), "--ids", "1,x"}, 2, "'x' is not a token id"},
        {{"attention", "--model", model(), "--ids", "1,99"}, 1, "token id 99 at position 1"},
        {{"attention", "--model", model(), "--ids", "1", "--head", "4"}, 2, "from 0 to 3"},
        {{"attention", "--model", model(), "--ids", "1", "--config", "k=Q,k=V"}, 1, "twice"},
        {{"attention", "--model", model(), "--ids", "1", "--backend", "tpu"},
         1,
         "unknown backend 'tpu'"},
        {{"tokenize", "--model", model(), "--text", "hello"}, 1, "cannot tokenize"},
    };
    for (const auto& c : cases) {
        const CliRun r = cli(c.args);
        EXPECT_EQ(r.exitCode, c.exitCode) << r.err;
        EXPECT_NE(r.err.find(c.fragment), std::string::npos) << r.err;
        if (c.exitCode == 1) {
            EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
            EXPECT_TRUE(r.out.empty());
        }
    }
}

TEST(CliShared, TokenizeAndAttentionMatchReferences) {
    QKV_REQUIRE_SHARED(shared);
    for (const std::string name : {"gpt2-random-tiny", "bert-random-tiny", "stories260K"}) {
        const auto folder = shared / "models" / name;
        const auto reference = test::loadReference(folder / "hf_reference.json");
        const auto& sentence = reference.sentences[0];
        CliRun r = cli({"tokenize", "--model", folder.string(), "--text", sentence.text, "--json"});
        ASSERT_EQ(r.exitCode, 0) << r.err;
        EXPECT_EQ(r.json()["ids"].get<std::vector<int>>(), sentence.ids) << name;
        EXPECT_EQ(r.json()["tokens"].get<std::vector<std::string>>(), sentence.tokens) << name;

        r = cli({"attention", "--model", folder.string(), "--text", sentence.text, "--config",
                 "tied-kv", "--layer", "1", "--head", "1", "--json"});
        ASSERT_EQ(r.exitCode, 0) << r.err;
        const auto doc = r.json();
        const auto& attention = doc["layers"][0]["heads"][0]["attention"];
        const auto& expected = sentence.results.at("tied-kv").attentions[1][1];
        for (int i = 0; i < expected.size; ++i)
            for (int j = 0; j < expected.size; ++j)
                EXPECT_NEAR(attention[i][j].get<double>(), expected.at(i, j), 1e-4) << name;
    }
}

std::string joinIds(const std::vector<int>& ids) {
    std::string text;
    for (int id : ids) text += (text.empty() ? "" : ",") + std::to_string(id);
    return text;
}

// Every supported family's shared folder: info, attention by --ids under each configuration the
// reference covers (one head of the last layer against Hugging Face), analyze.
// One captured head's "attention" in the CLI's JSON against the reference: float32 against
// float64 within 1e-4, as in core's reference test.
void expectHeadMatches(const nlohmann::json& layers, const test::ReferenceMatrix& expected) {
    const auto& attention = layers[0]["heads"][0]["attention"];
    ASSERT_EQ(static_cast<int>(attention.size()), expected.size);
    for (int i = 0; i < expected.size; ++i) {
        ASSERT_EQ(static_cast<int>(attention[i].size()), expected.cols);
        for (int j = 0; j < expected.cols; ++j)
            EXPECT_NEAR(attention[i][j].get<double>(), expected.at(i, j), 1e-4);
    }
}

// info names what each layer is where a model mixes kinds, its rotary scaling and QK-norm, and
// what a multimodal checkpoint read as its text model leaves out.
TEST(CliShared, InfoDescribesLayerKindsRotaryAndQkNorm) {
    QKV_REQUIRE_SHARED(shared);
    CliRun r =
        cli({"info", "--model", (shared / "models" / "gemma3mm-random-tiny").string(), "--json"});
    ASSERT_EQ(r.exitCode, 0) << r.err;
    const nlohmann::json kinds = r.json()["layer_kinds"];
    ASSERT_EQ(kinds.size(), 3u);
    EXPECT_EQ(kinds[0], "local, window 4, rotary θ=10000");
    EXPECT_EQ(kinds[2], "global, rotary θ=1000000, linear ×8");
    EXPECT_EQ(r.json()["qk_norm"], "per head");
    EXPECT_NE(r.json()["not_shown"].get<std::string>().find("image inputs"), std::string::npos);
    r = cli({"info", "--model", (shared / "models" / "smollm3-random-tiny").string()});
    ASSERT_EQ(r.exitCode, 0) << r.err;
    EXPECT_NE(r.out.find("0 local, 4 global, 1 NoPE"), std::string::npos) << r.out;
    r = cli({"analyze", "--model", (shared / "models" / "olmo2-random-tiny").string(), "--json"});
    ASSERT_EQ(r.exitCode, 0) << r.err;
    EXPECT_NE(r.json()["bilinear_form"].get<std::string>().find("diag(g_q * g_k)"),
              std::string::npos);
}

TEST(CliShared, EveryFamilyRunsAttentionAndAnalyzeByIds) {
    QKV_REQUIRE_SHARED(shared);
    for (const std::string& name : test::supportedSharedModelNames(shared)) {
        SCOPED_TRACE(name);
        const auto folder = shared / "models" / name;
        const auto reference = test::loadReference(folder / "hf_reference.json");
        const auto& sentence = reference.sentences.back();
        const bool encoderDecoder = !sentence.decoderIds.empty();
        CliRun r = cli({"info", "--model", folder.string(), "--json"});
        ASSERT_EQ(r.exitCode, 0) << r.err;
        // The last layer with heads (Nemotron-H's last block is an MLP), its last head.
        const auto& learned = sentence.results.at("original").attentions;
        int layer = r.json()["layers"].get<int>() - 1;
        while (layer > 0 && !encoderDecoder && learned.at(layer).empty()) --layer;
        int head = r.json()["heads"].get<int>() - 1;
        if (!encoderDecoder) head = std::min<int>(head, learned.at(layer).size() - 1);
        EXPECT_EQ(r.json()["model_type"].get<std::string>(), test::sharedModelType(folder));
        std::vector<std::string> input{"--ids", joinIds(sentence.ids)};
        if (encoderDecoder)
            input.insert(input.end(), {"--target-ids", joinIds(sentence.decoderIds)});
        for (const char* configuration : {"original", "shared-qk", "tied-kv", "single-w"}) {
            if (!sentence.results.count(configuration)) continue;  // latent attention's: learned
            const std::string config =
                std::string(configuration) == "original" ? "learned" : configuration;
            std::vector<std::string> args{"attention", "--model", folder.string()};
            args.insert(args.end(), input.begin(), input.end());
            args.insert(args.end(), {"--config", config, "--layer", std::to_string(layer), "--head",
                                     std::to_string(head), "--backend", "cpu", "--json"});
            r = cli(args);
            ASSERT_EQ(r.exitCode, 0) << r.err;
            const auto doc = r.json();
            EXPECT_EQ(doc["ids"].get<std::vector<int>>(), sentence.ids);
            const auto& expected = sentence.results.at(configuration);
            if (!encoderDecoder) {
                expectHeadMatches(doc["layers"], expected.attentions[layer][head]);
                continue;
            }
            // An encoder-decoder model's three kinds (the tiny ones' stacks are equally deep).
            EXPECT_EQ(doc["target_ids"].get<std::vector<int>>(), sentence.decoderIds);
            expectHeadMatches(doc["encoder_layers"], expected.attentions[layer][head]);
            expectHeadMatches(doc["decoder_layers"], expected.decoderAttentions[layer][head]);
            expectHeadMatches(doc["cross_layers"], expected.crossAttentions[layer][head]);
        }
        std::vector<std::string> analyze{"analyze", "--model", folder.string()};
        analyze.insert(analyze.end(), input.begin(), input.end());
        analyze.insert(analyze.end(), {"--backend", "cpu", "--json"});
        r = cli(analyze);
        ASSERT_EQ(r.exitCode, 0) << r.err;
        if (encoderDecoder) {
            for (const char* block : {"encoder", "decoder", "cross"})
                EXPECT_FALSE(r.json()[block]["layers"].empty()) << block;
            // Scores of cross-attention are not square: they have no symmetry.
            EXPECT_FALSE(r.json()["cross"]["layers"][0]["heads"][0].contains("score_symmetry"));
            EXPECT_TRUE(r.json()["decoder"]["layers"][0]["heads"][0].contains("score_symmetry"));
        } else {
            EXPECT_FALSE(r.json()["layers"].empty());
        }
    }
}

// Target options belong to encoder-decoder models, and --target-ids is checked like --ids.
TEST(CliShared, TargetInputIsForEncoderDecoderModels) {
    QKV_REQUIRE_SHARED(shared);
    CliRun r = cli({"attention", "--model", (shared / "models" / "gpt2-random-tiny").string(),
                    "--ids", "1,2", "--target-ids", "1"});
    EXPECT_EQ(r.exitCode, 2);
    EXPECT_NE(r.err.find("--target-text and --target-ids are for encoder-decoder models"),
              std::string::npos)
        << r.err;
    const std::string t5 = (shared / "models" / "t5-random-tiny").string();
    r = cli({"attention", "--model", t5, "--ids", "5,6,1", "--target-ids", "0,99999"});
    EXPECT_EQ(r.exitCode, 1);
    EXPECT_NE(r.err.find("token id 99999"), std::string::npos) << r.err;
    // Without a target the decoder reads its start token alone.
    r = cli({"attention", "--model", t5, "--ids", "5,6,1", "--json", "--no-scores"});
    ASSERT_EQ(r.exitCode, 0) << r.err;
    EXPECT_EQ(r.json()["target_ids"], nlohmann::json::array({0}));
    EXPECT_EQ(r.json()["cross_layers"][0]["heads"][0]["attention"].size(), 1u);
    EXPECT_EQ(r.json()["cross_layers"][0]["heads"][0]["attention"][0].size(), 3u);
}

// --routing lists, per mixture-of-experts layer and token, the experts chosen, heaviest first,
// with their weights (Mixtral renormalises them to sum to one), the last layer's too. A model
// without experts is refused.
TEST(CliShared, RoutingListsEachTokensExperts) {
    QKV_REQUIRE_SHARED(shared);
    const std::string mixtral = (shared / "models" / "mixtral-random-tiny").string();
    CliRun r = cli({"attention", "--model", mixtral, "--ids", "1,5,9,700", "--layer", "0", "--head",
                    "0", "--no-scores", "--routing", "--json"});
    ASSERT_EQ(r.exitCode, 0) << r.err;
    const nlohmann::json routing = r.json()["routing"];
    ASSERT_EQ(routing.size(), 2u);
    for (const nlohmann::json& layer : routing) {
        ASSERT_EQ(layer.size(), 4u);
        for (const nlohmann::json& token : layer) {
            ASSERT_EQ(token.size(), 2u);
            EXPECT_NE(token[0]["expert"], token[1]["expert"]);
            const double first = token[0]["weight"], second = token[1]["weight"];
            EXPECT_GE(first, second);
            EXPECT_NEAR(first + second, 1.0, 1e-6);  // float32 weights, renormalised
        }
    }
    r = cli({"attention", "--model", mixtral, "--ids", "1,5", "--layer", "1", "--head", "0",
             "--routing"});
    ASSERT_EQ(r.exitCode, 0) << r.err;
    EXPECT_NE(r.out.find("layer 1 routing"), std::string::npos) << r.out;
    r = cli({"info", "--model", mixtral});
    ASSERT_EQ(r.exitCode, 0) << r.err;
    EXPECT_NE(r.out.find("4 experts 96 wide, 2 per token (weights renormalised), in 2 of 2 layers"),
              std::string::npos)
        << r.out;
    EXPECT_EQ(r.out.find("d_ff"), std::string::npos) << r.out;  // no layer is a dense MLP
    r = cli({"attention", "--model", (shared / "models" / "gpt2-random-tiny").string(), "--ids",
             "1,2", "--routing"});
    EXPECT_EQ(r.exitCode, 1);
    EXPECT_NE(r.err.find("has no mixture-of-experts layers"), std::string::npos) << r.err;
}

// gpt-oss as the Hub stores it, experts in MXFP4: info says so, and attention runs.
TEST(CliShared, Mxfp4CheckpointOpensAndSaysItIsQuantised) {
    QKV_REQUIRE_SHARED(shared);
    test::TempDir packed, dequantised;
    test::writeMxfp4Twins(shared / "models" / "gpt_oss-random-tiny", packed.path(),
                          dequantised.path());
    CliRun r = cli({"info", "--model", packed.path().string(), "--json"});
    ASSERT_EQ(r.exitCode, 0) << r.err;
    EXPECT_EQ(r.json()["quantisation"], "mxfp4");
    r = cli({"info", "--model", packed.path().string()});
    EXPECT_NE(r.out.find(", quantised as mxfp4 (decoded block by block"), std::string::npos)
        << r.out;
    r = cli({"attention", "--model", packed.path().string(), "--ids", "1,5,9", "--layer", "1",
             "--head", "0"});
    EXPECT_EQ(r.exitCode, 0) << r.err;
    // A quantisation no reader decodes is refused by its name.
    std::ifstream in(packed.path() / "config.json");
    nlohmann::json config = nlohmann::json::parse(in);
    config["quantization_config"]["quant_method"] = "awq";
    std::ofstream(packed.path() / "config.json") << config.dump();
    r = cli({"info", "--model", packed.path().string()});
    EXPECT_EQ(r.exitCode, 1);
    EXPECT_NE(r.err.find("weights quantised as \"awq\""), std::string::npos) << r.err;
}

// gpt-oss's sinks: each row's sink share is 1 - its sum, in the table, the JSON and analyze.
TEST(CliShared, SinkShareOfEachRowOnAModelWithAttentionSinks) {
    QKV_REQUIRE_SHARED(shared);
    const std::string gptOss = (shared / "models" / "gpt_oss-random-tiny").string();
    CliRun r = cli({"attention", "--model", gptOss, "--ids", "1,5,9,700,33", "--layer", "1",
                    "--head", "2", "--no-scores", "--routing", "--json"});
    ASSERT_EQ(r.exitCode, 0) << r.err;
    const nlohmann::json doc = r.json();
    EXPECT_EQ(doc["attention_sinks"], true);
    const nlohmann::json& head = doc["layers"][0]["heads"][0];
    ASSERT_EQ(head["sink_share"].size(), 5u);
    for (size_t i = 0; i < 5; ++i) {
        double row = 0;
        for (double a : head["attention"][i]) row += a;
        const double share = head["sink_share"][i];
        EXPECT_GT(share, 0.0);
        // Both are written to 7 significant digits.
        EXPECT_NEAR(row + share, 1.0, 1e-6) << "row " << i;
    }
    for (const nlohmann::json& token : doc["routing"][1])
        EXPECT_NEAR(double(token[0]["weight"]) + double(token[1]["weight"]), 1.0, 1e-6);
    r = cli({"attention", "--model", gptOss, "--ids", "1,5", "--layer", "0", "--head", "0"});
    ASSERT_EQ(r.exitCode, 0) << r.err;
    EXPECT_NE(r.out.find("sink share"), std::string::npos) << r.out;
    r = cli({"analyze", "--model", gptOss, "--ids", "1,5,9", "--no-copying-score", "--json"});
    ASSERT_EQ(r.exitCode, 0) << r.err;
    const double mean = r.json()["layers"][0]["heads"][0]["sink_share"];
    EXPECT_GT(mean, 0.0);
    EXPECT_LT(mean, 1.0);
    r = cli({"info", "--model", gptOss});
    ASSERT_EQ(r.exitCode, 0) << r.err;
    EXPECT_NE(r.out.find("sinks"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("4 experts 64 wide, 2 per token (weights a softmax of the chosen "
                         "logits), in 2 of 2 layers"),
              std::string::npos)
        << r.out;
    // Without sinks nothing is said about them.
    r = cli({"attention", "--model", (shared / "models" / "gpt2-random-tiny").string(), "--ids",
             "1,2", "--layer", "0", "--head", "0", "--json"});
    ASSERT_EQ(r.exitCode, 0) << r.err;
    EXPECT_FALSE(r.json().contains("attention_sinks"));
    EXPECT_FALSE(r.json()["layers"][0]["heads"][0].contains("sink_share"));
}

// Gemma 4: info names the layers whose W_V is W_K and their heads; survey counts them; analyze
// and attention read each layer's own head width.
TEST(CliShared, GemmaFourSaysWhereTheModelTiesKeysAndValues) {
    QKV_REQUIRE_SHARED(shared);
    const std::string gemma4 = (shared / "models" / "gemma4-random-tiny").string();
    CliRun r = cli({"info", "--model", gemma4, "--json"});
    ASSERT_EQ(r.exitCode, 0) << r.err;
    EXPECT_EQ(r.json()["value_is_key_layers"], nlohmann::json({1, 3}));
    EXPECT_NE(r.json()["layer_kinds"][1].get<std::string>().find(
                  "d_k 32, 1 key/value head, W_V = W_K (tied by the model)"),
              std::string::npos)
        << r.out;
    r = cli({"info", "--model", gemma4});
    ASSERT_EQ(r.exitCode, 0) << r.err;
    EXPECT_NE(r.out.find("16; 32 wide, 1 key/value head in 2 of 4 layers"), std::string::npos)
        << r.out;
    EXPECT_NE(r.out.find("in 2 of 4 layers, tied by the model"), std::string::npos) << r.out;
    r = cli({"survey", gemma4, "--json"});
    ASSERT_EQ(r.exitCode, 0) << r.err;
    EXPECT_EQ(r.json()["models"][0]["value_is_key_layers"], 2);
    r = cli({"attention", "--model", gemma4, "--ids", "2,17,401,33", "--layer", "1", "--head", "3",
             "--json"});
    ASSERT_EQ(r.exitCode, 0) << r.err;
    EXPECT_EQ(r.json()["layers"][0]["heads"][0]["attention"].size(), 4u);
    r = cli({"analyze", "--model", gemma4, "--no-copying-score", "--json"});
    ASSERT_EQ(r.exitCode, 0) << r.err;
    EXPECT_EQ(r.json()["layers"].size(), 4u);
}

// A GGUF file is a model wherever a folder is: info says its formats, attention runs on ids
// and on text.
TEST(CliShared, GgufFileOpensAsAModel) {
    QKV_REQUIRE_SHARED_GGUF(shared);
    const std::string gguf =
        (shared / "gguf" / "llama-gguf-tiny" / "llama-gguf-tiny-Q4_K_M.gguf").string();
    CliRun r = cli({"info", "--model", gguf, "--json"});
    ASSERT_EQ(r.exitCode, 0) << r.err;
    EXPECT_EQ(r.json()["architecture"], "llama");
    EXPECT_EQ(r.json()["quantisation"], "GGUF: Q4_K 13 tensors, F32 5, Q6_K 3");
    r = cli({"attention", "--model", gguf, "--ids", "1,5,900,33", "--layer", "1", "--head", "2",
             "--json"});
    ASSERT_EQ(r.exitCode, 0) << r.err;
    EXPECT_EQ(r.json()["layers"][0]["heads"][0]["attention"].size(), 4u);
    // Text through the file's own SentencePiece vocabulary (tokenize reads the file too): BOS
    // first, as llama.cpp adds it, then one attention row per token.
    r = cli({"tokenize", "--model", gguf, "--text", "The keys respond", "--json"});
    ASSERT_EQ(r.exitCode, 0) << r.err;
    const nlohmann::json tokens = r.json();
    ASSERT_GT(tokens["ids"].size(), 2u);
    EXPECT_EQ(tokens["tokens"][0], "<s>");
    EXPECT_EQ(tokens["tokens"][1], "\u2581The");
    r = cli({"attention", "--model", gguf, "--text", "The keys respond", "--layer", "1", "--head",
             "2", "--json"});
    ASSERT_EQ(r.exitCode, 0) << r.err;
    EXPECT_EQ(r.json()["layers"][0]["heads"][0]["attention"].size(), tokens["ids"].size());
}

// compare: the same ids through a quantised file and its float32 original, head by head.
TEST(CliShared, CompareSaysWhatQuantisationChanges) {
    QKV_REQUIRE_SHARED_GGUF(shared);
    const auto folder = shared / "gguf" / "llama-gguf-tiny";
    const std::string q4 = (folder / "llama-gguf-tiny-Q4_K_M.gguf").string(),
                      f32 = (folder / "llama-gguf-tiny-F32.gguf").string();
    CliRun r = cli({"compare", "--model", q4, "--against", f32, "--ids", "1,5,900,33", "--json"});
    ASSERT_EQ(r.exitCode, 0) << r.err;
    const nlohmann::json doc = r.json();
    ASSERT_EQ(doc["layers"].size(), 2u);
    ASSERT_EQ(doc["layers"][1]["heads"].size(), 4u);
    EXPECT_GT(doc["largest_attention_change"].get<double>(), 0.0);
    r = cli({"compare", "--model", q4, "--against", f32, "--ids", "1,5,900,33"});
    ASSERT_EQ(r.exitCode, 0) << r.err;
    EXPECT_NE(r.out.find("largest attention change"), std::string::npos) << r.out;
    r = cli({"compare", "--model", q4, "--against",
             (shared / "gguf" / "qwen2-gguf-tiny" / "qwen2-gguf-tiny-F32.gguf").string(), "--ids",
             "1,2"});
    EXPECT_EQ(r.exitCode, 1);
    EXPECT_NE(r.err.find("not checkpoints of one model"), std::string::npos) << r.err;
}

// tokenize reads config.json and the tokenizer only: it works while the weights are missing.
TEST(CliShared, TokenizeNeedsNoWeights) {
    QKV_REQUIRE_SHARED(shared);
    test::TempDir dir;
    for (const char* file : {"vocab.json", "merges.txt", "tokenizer_config.json"})
        std::filesystem::copy_file(shared / "tokenizers" / "qwen2" / file, dir.path() / file);
    // The tiny checkpoint's config with the real tokenizer's vocabulary size (Qwen2.5's).
    std::ifstream configIn(shared / "models" / "qwen2-random-tiny" / "config.json");
    nlohmann::json config = nlohmann::json::parse(configIn);
    config["vocab_size"] = 151936;
    test::writeText(dir.path() / "config.json", config.dump());
    std::ifstream in(shared / "tokenizers" / "qwen2" / "token_reference.json");
    const nlohmann::json reference = nlohmann::json::parse(in);
    const nlohmann::json& sentence = reference["sentences"][0];
    CliRun r = cli({"tokenize", "--model", dir.path().string(), "--text",
                    sentence["text"].get<std::string>(), "--json"});
    ASSERT_EQ(r.exitCode, 0) << r.err;
    EXPECT_EQ(r.json()["ids"], sentence["ids"]);
    r = cli({"attention", "--model", dir.path().string(), "--text", "hello"});
    EXPECT_EQ(r.exitCode, 1);
    EXPECT_NE(r.err.find("model.safetensors"), std::string::npos) << r.err;
}

TEST(CliShared, NonUtf8TextIsRejected) {
    QKV_REQUIRE_SHARED(shared);
    const CliRun r = cli({"tokenize", "--model", (shared / "models" / "gpt2-random-tiny").string(),
                          "--text", std::string("caf\xe9 au lait")});
    EXPECT_EQ(r.exitCode, 1);
    EXPECT_NE(r.err.find("UTF-8"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace qkv

namespace qkv {
namespace {

// survey: one row per model with the medians analyze gives each, as a table, JSON, CSV and a
// figure; what is wrong with a model is named.
TEST_F(CliFixture, SurveyOfSeveralModels) {
    test::writeTinyBert(m_dir.path() / "bert");
    const std::string bert = (m_dir.path() / "bert").string();
    CliRun r = cli({"survey", model(), bert, "--json"});
    ASSERT_EQ(r.exitCode, 0) << r.err;
    const auto doc = r.json();
    ASSERT_EQ(doc["models"].size(), 2u);
    const auto& gpt2 = doc["models"][0];
    EXPECT_EQ(gpt2["model"], model());
    EXPECT_EQ(gpt2["attention"], "causal");
    EXPECT_EQ(doc["models"][1]["attention"], "bidirectional");
    EXPECT_EQ(gpt2["layers"], 2);
    EXPECT_EQ(gpt2["heads"], 8);
    EXPECT_EQ(gpt2["layer_wqk_symmetry"].size(), 2u);
    const auto analyzed = cli({"analyze", "--model", model(), "--json"}).json();
    EXPECT_EQ(gpt2["median_layer_wqk_symmetry"], analyzed["median_layer_wqk_symmetry"]);
    EXPECT_EQ(gpt2["median_layer_wqk_directionality"], analyzed["median_layer_wqk_directionality"]);
    for (const char* key : {"median_head_wqk_symmetry", "median_head_wqk_directionality",
                            "median_ov_copying_score"}) {
        EXPECT_GE(gpt2[key].get<double>(), -1.0) << key;
        EXPECT_LE(gpt2[key].get<double>(), 1.0) << key;
    }
    EXPECT_FALSE(cli({"survey", model(), "--json", "--no-copying-score"})
                     .json()["models"][0]
                     .contains("median_ov_copying_score"));

    r = cli({"survey", model(), bert, "--csv"});
    ASSERT_EQ(r.exitCode, 0) << r.err;
    EXPECT_EQ(r.out.rfind("model,model_type,attention,layers,median_layer_wqk_symmetry", 0), 0u);
    EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 3);
    r = cli({"survey", model(), bert});
    EXPECT_NE(r.out.find("bidirectional"), std::string::npos) << r.out;

    r = cli({"survey"});
    EXPECT_EQ(r.exitCode, 2);
    EXPECT_NE(r.err.find("name at least one model"), std::string::npos) << r.err;
    const std::string missing = (m_dir.path() / "nothing-here").string();
    r = cli({"survey", model(), missing});
    EXPECT_EQ(r.exitCode, 1);
    EXPECT_NE(r.err.find(missing), std::string::npos) << r.err;
}

TEST_F(CliFixture, SurveyFigure) {
#ifndef QKV_CLI_HAS_RENDER
    GTEST_SKIP() << "qkvlab-cli was built without the GUI (QKV_BUILD_GUI=OFF): no figures";
#endif
    const auto out = m_dir.path() / "survey.svg";
    const CliRun r = cli({"survey", model(), "--out", out.string()});
    ASSERT_EQ(r.exitCode, 0) << r.err;
    std::ifstream in(out);
    const std::string svg((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    EXPECT_NE(svg.find("<svg"), std::string::npos);
    EXPECT_NE(svg.find("symmetry"), std::string::npos);  // the panel's axis label, as text
    EXPECT_NE(cli({"survey", model(), "--out", (m_dir.path() / "x.gif").string()})
                  .err.find("unknown image type"),
              std::string::npos);
}

}  // namespace
}  // namespace qkv
