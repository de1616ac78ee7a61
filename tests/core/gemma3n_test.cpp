// Gemma 3n: the layers that attend over an earlier layer's keys and values, AltUp's streams,
// activation sparsity, what the configurations mean there and the config keys refused by name.
// Exactness against Hugging Face is ForwardReference's (gemma3n-random-tiny, original and
// tied-kv).
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "core/analysis/head_metrics.h"
#include "core/model/applicable_configurations.h"
#include "core/model/forward.h"
#include "core/model/model_family.h"
#include "core/report/json_report.h"
#include "core/util/error.h"
#include "tests/support/reference.h"
#include "tests/support/shared_assets.h"

namespace qkv {
namespace {

class Gemma3nShared : public testing::Test {
  protected:
    void SetUp() override {
        QKV_REQUIRE_SHARED(shared);
        folder = shared / "models" / "gemma3n-random-tiny";
        model = Model::open(folder);
        backend = createCpuBackend();
    }
    ForwardResult run(const std::string& configuration) const {
        ForwardRequest request;
        request.ids = {2, 17, 401, 33, 90, 250, 77, 5, 311};
        request.config = WConfiguration::parse(configuration);
        request.logits = LogitsMode::LastPosition;
        return ForwardPass(*model, *backend).run(request);
    }
    std::filesystem::path folder;
    std::unique_ptr<Model> model;
    std::unique_ptr<Backend> backend;
};

TEST_F(Gemma3nShared, SharedLayersAttendOverTheirSourcesKeysAndValues) {
    const Architecture& c = model->architecture();
    const nlohmann::json reference =
        nlohmann::json::parse(std::ifstream(folder / "hf_reference.json"));
    const nlohmann::json& sources = reference.at("kv_source_layer");
    ASSERT_EQ(static_cast<int>(sources.size()), c.layers);
    for (int l = 0; l < c.layers; ++l) {
        const int expected = sources[l].is_null() ? -1 : sources[l].get<int>();
        EXPECT_EQ(c.kindOf(l).keyValueSource, expected) << l;
        EXPECT_EQ(c.describeLayer(l).find(
                      expected >= 0 ? "K and V are layer " + std::to_string(expected) + "'s"
                                    : "its K and V serve later layers") != std::string::npos,
                  true)
            << c.describeLayer(l);
    }
    // `info --json` gives the reference's own list.
    EXPECT_EQ(nlohmann::json::parse(modelInfoJson(*model)["kv_source_layer"].dump()), sources);
    // The same keys and values, bit for bit: the source's (after k_norm, v_norm and rotary).
    for (const char* configuration : {"learned", "tied-kv", "shared-qk"}) {
        SCOPED_TRACE(configuration);
        const ForwardResult r = run(configuration);
        for (int l = 0; l < c.layers; ++l) {
            const int source = c.kindOf(l).keyValueSource;
            if (source < 0) continue;
            EXPECT_EQ(r.trace.layers()[l].key, r.trace.layers()[source].key);
            EXPECT_EQ(r.trace.layers()[l].value, r.trace.layers()[source].value);
            EXPECT_NE(r.trace.layers()[l].query, r.trace.layers()[source].query);
        }
    }
}

// Weight metrics read the weights the scores use: a shared layer's key and value slots are its
// source's, under any configuration (shared-qk: the source's W_Q); its query slot is its own.
TEST_F(Gemma3nShared, WeightMetricsTakeKeysAndValuesFromTheSource) {
    for (const char* name : {"learned", "shared-qk", "tied-kv"}) {
        SCOPED_TRACE(name);
        const WConfiguration config = WConfiguration::parse(name);
        for (int h = 0; h < 4; ++h)
            for (Projection slot : {Projection::Key, Projection::Value}) {
                EXPECT_EQ(headProjection(*model, config, 2, h, slot).view.data,
                          headProjection(*model, config, 0, h, slot).view.data);
                EXPECT_EQ(headProjection(*model, config, 3, h, slot).view.data,
                          headProjection(*model, config, 1, h, slot).view.data);
            }
    }
    const WConfiguration learned;
    EXPECT_NE(headProjection(*model, learned, 2, 0, Projection::Query).view.data,
              headProjection(*model, learned, 0, 0, Projection::Query).view.data);
}

TEST_F(Gemma3nShared, DescribesItsStreamsAndSparsity) {
    const Architecture& c = model->architecture();
    EXPECT_EQ(c.streams.count, 4);
    EXPECT_EQ(c.streams.active, 0);
    EXPECT_EQ(c.perLayerInputs.width, 16);
    EXPECT_EQ(c.laurelRank, 8);
    // torch's float32 Normal(0, 1).icdf(0.95) is 1.6448533535 (PROVENANCE-wave3-dense.md); the
    // reader rounds the quantile of the same float32 p once, one float32 ulp (1.2e-7) from it.
    EXPECT_NEAR(c.kindOf(0).gateCutoff, 1.6448533535f, 1.2e-7);
    EXPECT_NE(c.kindOf(0).gateCutoff, 1.6448536f);  // not the quantile of 0.95 itself
    for (int l = 1; l < c.layers; ++l) EXPECT_EQ(c.kindOf(l).gateCutoff, 0.0f) << l;
    EXPECT_EQ(c.describeStreams(),
              "4 AltUp streams (stream 0 computes), LAuReL of rank 8, per-layer inputs 16 wide");
    EXPECT_EQ(c.describeSharedKeyValues(), "layers 2, 3 attend over layers 0, 1's keys and values");
    EXPECT_EQ(c.kindName(0), "attention_sliding");
    EXPECT_EQ(c.kindName(1), "attention");
    EXPECT_NE(c.describeLayer(0).find("MLP gate above its mean + 1.645 std only"),
              std::string::npos)
        << c.describeLayer(0);
}

// A shared layer has only W_Q: configurations that put W_K or W_V in its query slot are refused,
// naming the layer; those that keep its queries apply (in the layers computing keys and values).
TEST_F(Gemma3nShared, ConfigurationsApplyWhereKeysAndValuesAreComputed) {
    const Architecture& c = model->architecture();
    for (const char* kept : {"learned", "shared-qk", "tied-kv", "single-w", "sym-scores"})
        EXPECT_TRUE(configurationApplies(c, WConfiguration::parse(kept))) << kept;
    const WConfiguration swapped = WConfiguration::parse("q=K,k=Q");
    EXPECT_FALSE(configurationApplies(c, swapped));
    EXPECT_NE(configurationRefusal(c, swapped).find("layer 2 attends over layer 0's keys"),
              std::string::npos)
        << configurationRefusal(c, swapped);
    EXPECT_THROW(run("q=K,k=Q"), Error);
}

// Every stream is finite and the logits are soft-capped at 30.
TEST_F(Gemma3nShared, LogitsStayWithinTheSoftCap) {
    const ForwardResult r = run("learned");
    ASSERT_EQ(r.logits.rows(), 1);
    EXPECT_TRUE(r.logits.allFinite());
    EXPECT_LT(r.logits.cwiseAbs().maxCoeff(), 30.0f);
}

// The backend's Gaussian top-k on rows whose mean and (biased) deviation are known: 1, 2, 3, 4
// has mean 2.5 and deviation √1.25; a constant row keeps nothing.
TEST(GaussianTopK, KeepsWhatExceedsTheRowsMeanByZDeviations) {
    auto backend = createCpuBackend();
    const float x[] = {1, 2, 3, 4, 5, 5, 5, 5};
    auto in = backend->upload(x, 2, 4);
    auto out = backend->create(2, 4);
    auto values = [&](float z) {
        backend->gaussianTopK(*in, z, *out);
        std::vector<float> y(8);
        backend->download(*out, y.data());
        return y;
    };
    const std::vector<float> atMean = values(0.0f);
    const std::vector<float> expected = {0, 0, 0.5f, 1.5f, 0, 0, 0, 0};
    for (int i = 0; i < 8; ++i) EXPECT_EQ(atMean[i], expected[i]) << i;
    const std::vector<float> above = values(1.0f);
    EXPECT_NEAR(above[3], 4.0 - (2.5 + std::sqrt(1.25)), 1e-6);  // float32 rounding of 4 - 3.6
    for (int i : {0, 1, 2, 4, 5, 6, 7}) EXPECT_EQ(above[i], 0.0f) << i;
}

std::string refusal(const std::function<void(nlohmann::json&)>& edit) {
    nlohmann::json config = {
        {"model_type", "gemma3n_text"},
        {"num_hidden_layers", 4},
        {"hidden_size", 64},
        {"intermediate_size", {128, 128, 128, 128}},
        {"num_attention_heads", 4},
        {"num_key_value_heads", 2},
        {"head_dim", 16},
        {"num_kv_shared_layers", 2},
        {"activation_sparsity_pattern", {0.95, 0.0, 0.0, 0.0}},
        {"layer_types",
         {"sliding_attention", "full_attention", "sliding_attention", "full_attention"}}};
    edit(config);
    try {
        parseArchitecture(config.dump(), "config.json");
    } catch (const Error& e) {
        return e.what();
    }
    return "";
}

TEST(Gemma3nConfig, RefusesWhatItCannotComputeByName) {
    EXPECT_EQ(refusal([](nlohmann::json&) {}), "");
    EXPECT_NE(refusal([](nlohmann::json& c) {
                  c["intermediate_size"] = {128, 256, 128, 128};
              }).find("\"intermediate_size\" must give every layer the same"),
              std::string::npos);
    EXPECT_NE(refusal([](nlohmann::json& c) {
                  c["activation_sparsity_pattern"] = {0.95, 0.0};
              }).find("\"activation_sparsity_pattern\" must have one entry per layer (4), not 2"),
              std::string::npos);
    EXPECT_NE(refusal([](nlohmann::json& c) {
                  c["activation_sparsity_pattern"] = {1.0, 0.0, 0.0, 0.0};
              }).find("fractions in [0, 1)"),
              std::string::npos);
    EXPECT_NE(refusal([](nlohmann::json& c) {
                  c["num_kv_shared_layers"] = 4;
              }).find("\"num_kv_shared_layers\" (4) leaves no layer"),
              std::string::npos);
    EXPECT_NE(refusal([](nlohmann::json& c) {
                  c["layer_types"] = {"sliding_attention", "sliding_attention", "full_attention",
                                      "full_attention"};
              }).find("layer 2 shares keys and values"),
              std::string::npos);
    EXPECT_NE(refusal([](nlohmann::json& c) {
                  c["altup_active_idx"] = 4;
              }).find("\"altup_active_idx\" (4) must name one of the 4 AltUp streams"),
              std::string::npos);
    EXPECT_NE(refusal([](nlohmann::json& c) {
                  c["attention_bias"] = true;
              }).find("attention_bias is not supported for Gemma 3n"),
              std::string::npos);
}

// The Hub's wrapper (Gemma3nForConditionalGeneration) reads its text_config and says what it
// leaves out.
TEST(Gemma3nConfig, TheHubsWrapperReadsItsTextModel) {
    const nlohmann::json text = {{"num_hidden_layers", 4},           {"hidden_size", 64},
                                 {"intermediate_size", 128},         {"num_attention_heads", 4},
                                 {"num_key_value_heads", 2},         {"head_dim", 16},
                                 {"num_kv_shared_layers", 2},        {"vocab_size", 512},
                                 {"hidden_size_per_layer_input", 16}};
    const Architecture c = parseArchitecture(
        nlohmann::json{{"model_type", "gemma3n"}, {"text_config", text}}.dump(), "config.json");
    EXPECT_EQ(c.family, "gemma3n");
    EXPECT_EQ(c.dFF, 128);
    EXPECT_EQ(c.kindOf(3).keyValueSource, 1);  // every fifth layer is global: these four are local
    EXPECT_EQ(c.kindOf(2).keyValueSource, 1);
    EXPECT_NE(c.notShown.find("image and audio inputs are not shown"), std::string::npos);
}

}  // namespace
}  // namespace qkv
