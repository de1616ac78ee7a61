// DeepSeek sparse attention (DeepSeek-V3.2, GLM-5): the indexer's top-k rule, the dense re-run
// transformers gives beside each reference (dense_attentions), what the selection hides, and
// the errors of a bad indexer. The kept keys themselves are checked against the references in
// ForwardReference (expectMixerDetails).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/analysis/hidden_keys.h"
#include "core/model/forward.h"
#include "core/model/key_indexer.h"
#include "core/model/model.h"
#include "tests/support/fixture_writer.h"
#include "tests/support/reference.h"
#include "tests/support/shared_assets.h"

namespace qkv {
namespace {

// As ForwardReference: float32 against transformers' float64 reference.
constexpr double kAttentionTolerance = 1e-4;

const char* const kSparseModels[] = {"deepseek_v32-random-tiny", "glm_moe_dsa-random-tiny"};

double worstAgainst(const RowMatrixXf& ours, const test::ReferenceMatrix& expected) {
    EXPECT_EQ(ours.rows(), expected.size);
    EXPECT_EQ(ours.cols(), expected.cols);
    if (ours.rows() != expected.size || ours.cols() != expected.cols) return 1.0;
    double worst = 0.0;
    for (int i = 0; i < expected.size; ++i)
        for (int j = 0; j < expected.cols; ++j)
            worst = std::max(worst, std::abs(ours(i, j) - expected.at(i, j)));
    return worst;
}

TEST(KeyIndexer, TopKeysKeepTheBestCausalKeysInOrder) {
    RowMatrixXf scores(4, 4);
    scores << 5, 0, 0, 0,  //
        1, 2, 0, 0,        //
        3, 1, 3, 0,        // a tie at the boundary goes to the earlier key
        0.5, 4, -1, 2;     // future keys (above the diagonal) are never kept
    const std::vector<std::vector<int>> kept = topKeys(scores, 2);
    EXPECT_EQ(kept, (std::vector<std::vector<int>>{{0}, {0, 1}, {0, 2}, {1, 3}}));
    EXPECT_EQ(topKeys(scores, 9)[3], (std::vector<int>{0, 1, 2, 3}));  // k > n: dense
}

// A top-k at least the sentence's length keeps every causal key: the model is then transformers'
// dense re-run (dense_attentions), in every layer — the later layers read the dense layers'
// outputs, so this checks the whole forward without the selection.
TEST(SparseAttention, ATopKLongerThanTheSentenceIsTheDenseModel) {
    QKV_REQUIRE_SHARED(shared);
    for (const char* name : kSparseModels) {
        SCOPED_TRACE(name);
        const auto folder = shared / "models" / name;
        const auto reference = test::loadReference(folder / "hf_reference.json");
        test::TempDir dir;
        const auto model = Model::open(test::folderWithEditedConfig(
            folder, dir.path(), [](nlohmann::json& c) { c["index_topk"] = 1 << 20; }));
        auto backend = createCpuBackend();
        ForwardPass pass(*model, *backend);
        for (const auto& sentence : reference.sentences) {
            ForwardRequest request;
            request.ids = sentence.ids;
            const auto& expected = sentence.results.at("original");
            ASSERT_FALSE(expected.denseAttentions.empty());
            EXPECT_LE(test::worstDifference(pass.run(request).trace, expected.denseAttentions),
                      kAttentionTolerance);
        }
    }
}

// In the first layer the dense re-run reads the same input, so the counterfactual computed from
// the sparse model's own scores (what the selection hides) is transformers' dense attention.
TEST(SparseAttention, WhatTheSelectionHidesIsTheDenseFirstLayer) {
    QKV_REQUIRE_SHARED(shared);
    for (const char* name : kSparseModels) {
        SCOPED_TRACE(name);
        const auto folder = shared / "models" / name;
        const auto reference = test::loadReference(folder / "hf_reference.json");
        const auto model = Model::open(folder);
        const Architecture& c = model->architecture();
        ASSERT_TRUE(hidesKeys(c, 0));
        EXPECT_EQ(c.kindName(0), "attention_sparse");
        auto backend = createCpuBackend();
        ForwardPass pass(*model, *backend);
        for (const auto& sentence : reference.sentences) {
            ForwardRequest request;
            request.ids = sentence.ids;
            const ForwardResult result = pass.run(request);
            const auto& dense = sentence.results.at("original").denseAttentions;
            const AttentionTrace& trace = result.trace;
            ASSERT_NE(selectedKeys(trace, 0), nullptr);
            double mostDropped = 0.0;
            for (int h = 0; h < c.heads; ++h) {
                const HiddenKeys hidden =
                    whatTheMaskHides(trace.scores(0, h), trace.probabilities(0, h), c.keyMask(0),
                                     false, false, selectedKeys(trace, 0));
                EXPECT_LE(worstAgainst(hidden.dense, dense[0][h]), kAttentionTolerance) << h;
                for (double d : hidden.dropped) mostDropped = std::max(mostDropped, d);
            }
            EXPECT_GT(mostDropped, 0.1) << "the top-k bites in these references";
        }
    }
}

TEST(SparseAttention, GlmSharedLayersKeepThePreviousLayersKeys) {
    QKV_REQUIRE_SHARED(shared);
    const auto model = Model::open(shared / "models" / "glm_moe_dsa-random-tiny");
    const Architecture& c = model->architecture();
    EXPECT_TRUE(c.kindOf(1).reusesKeys);
    EXPECT_NE(c.describeLayer(1).find("the previous layer's keys"), std::string::npos);
    auto backend = createCpuBackend();
    ForwardRequest request;
    request.ids = {0, 20, 30, 40, 50, 60, 70, 80};
    const ForwardResult result = ForwardPass(*model, *backend).run(request);
    EXPECT_EQ(result.trace.layers()[1].selectedKeys, result.trace.layers()[0].selectedKeys);
    EXPECT_EQ(result.trace.layers()[1].indexerScores.size(), 0);
    EXPECT_EQ(result.trace.layers()[0].indexerScores.rows(), 8);
}

TEST(SparseAttention, BadIndexersAreNamed) {
    QKV_REQUIRE_SHARED(shared);
    const auto folder = shared / "models" / "deepseek_v32-random-tiny";
    const std::vector<std::pair<std::function<void(nlohmann::json&)>, std::string>> cases = {
        {[](nlohmann::json& c) { c["index_head_dim"] = 4; },
         "\"index_head_dim\" (4) is narrower than its rotary part"},
        // The config's width disagrees with the stored indexer's tensors.
        {[](nlohmann::json& c) { c["index_head_dim"] = 32; }, "indexer.wq_b"},
        {[](nlohmann::json& c) { c["index_n_heads"] = 4; }, "indexer.wq_b"},
        {[](nlohmann::json& c) { c["index_topk"] = 0; }, "\"index_topk\""},
        {[](nlohmann::json& c) { c.erase("q_lora_rank"); }, "\"q_lora_rank\" is missing"},
        {[](nlohmann::json& c) { c["layer_types"][1] = "full_attention"; },
         "\"layer_types\" \"full_attention\" is not supported"},
        {[](nlohmann::json& c) { c["mlp_layer_types"] = {"dense"}; },
         "\"mlp_layer_types\" names 1 layers of 3"},
    };
    for (const auto& [edit, message] : cases) {
        test::TempDir dir;
        const std::string error =
            test::openingError(test::folderWithEditedConfig(folder, dir.path(), edit));
        EXPECT_NE(error.find(message), std::string::npos) << error;
    }
    const auto glm = shared / "models" / "glm_moe_dsa-random-tiny";
    for (const auto& [edit, message] :
         std::vector<std::pair<std::function<void(nlohmann::json&)>, std::string>>{
             {[](nlohmann::json& c) {
                  c["indexer_types"] = {"shared", "full", "full"};
              },
              "\"indexer_types\" starts with \"shared\""},
             {[](nlohmann::json& c) {
                  c["indexer_types"] = {"full", "full"};
              },
              "\"indexer_types\" names 2 layers of 3"},
             // A layer said to run its own indexer whose tensors the file does not have.
             {[](nlohmann::json& c) {
                  c["indexer_types"] = {"full", "full", "full"};
              },
              "layers.1.self_attn.indexer"},
         }) {
        test::TempDir dir;
        const std::string error =
            test::openingError(test::folderWithEditedConfig(glm, dir.path(), edit));
        EXPECT_NE(error.find(message), std::string::npos) << error;
    }
}

}  // namespace
}  // namespace qkv
