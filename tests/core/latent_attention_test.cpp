// Multi-head latent attention (DeepSeek): the per-head layout its projections are gathered into,
// worked by hand; the configurations QKV Lab defines for it, and the refusal of the others.
// Exactness against Hugging Face is ForwardReference's (deepseek_v3-random-tiny).
#include "core/model/latent_attention.h"

#include <gtest/gtest.h>

#include <cmath>

#include "core/analysis/head_metrics.h"
#include "core/analysis/latent_forms.h"
#include "core/analysis/matrix_metrics.h"
#include "core/model/applicable_configurations.h"
#include "core/model/forward.h"
#include "core/util/error.h"
#include "tests/support/shared_assets.h"

namespace qkv {
namespace {

// Two heads, each stored as query [nope 3 | rope 4], key-value [key nope 3 | value 2].
Architecture tinyLatent(bool interleaved) {
    Architecture c;
    c.heads = c.kvHeads = 2;
    c.latent = {0, 8, 4, 3, interleaved};
    c.headDim = 7;
    c.valueDim = 2;
    return c;
}

TEST(LatentAttention, EachHeadsRotaryPartComesFirstDeinterleaved) {
    const Architecture c = tinyLatent(true);
    // Rotary dims stored as pairs (0 1) (2 3) are read in rotate-half order 0 2 1 3.
    EXPECT_EQ(latentQueryColumns(c),
              (std::vector<int>{3, 5, 4, 6, 0, 1, 2, 10, 12, 11, 13, 7, 8, 9}));
    // Keys: the one rotary key (columns 0-3 of [rotary key | key-value]) in every head, then
    // the head's key nope columns (the key-value projection's start at 4, 5 wide per head).
    EXPECT_EQ(latentKeyColumns(c), (std::vector<int>{0, 2, 1, 3, 4, 5, 6, 0, 2, 1, 3, 9, 10, 11}));
    EXPECT_EQ(latentValueColumns(c), (std::vector<int>{3, 4, 8, 9}));
    EXPECT_EQ(latentQueryColumns(tinyLatent(false)),
              (std::vector<int>{3, 4, 5, 6, 0, 1, 2, 10, 11, 12, 13, 7, 8, 9}));
}

TEST(LatentAttention, GatherColumnsOnTheCpuPicksEachListedColumn) {
    auto be = createCpuBackend();
    const std::vector<float> a = {1, 2, 3, 4, 5, 6}, b = {10, 20};  // 2 x 3 and 2 x 1
    auto first = be->upload(a.data(), 2, 3);
    auto second = be->upload(b.data(), 2, 1);
    auto out = be->create(2, 4);
    be->gatherColumns(*first, second.get(), {3, 0, 0, 2}, *out);
    std::vector<float> got(8);
    be->download(*out, got.data());
    EXPECT_EQ(got, (std::vector<float>{10, 1, 1, 3, 20, 4, 4, 6}));
    EXPECT_THROW(be->gatherColumns(*first, nullptr, {0, 1, 2, 3}, *out), Error);  // no column 3
}

class LatentAttentionShared : public testing::Test {
  protected:
    void SetUp() override {
        QKV_REQUIRE_SHARED(shared);
        model = Model::open(shared / "models" / "deepseek_v3-random-tiny");
        backend = createCpuBackend();
    }
    ForwardResult run(const std::string& configuration) const {
        ForwardRequest request;
        request.ids = {0, 17, 401, 33, 902, 250, 77};
        request.config = WConfiguration::parse(configuration);
        request.capture.scores = true;
        return ForwardPass(*model, *backend).run(request);
    }
    std::unique_ptr<Model> model;
    std::unique_ptr<Backend> backend;
};

TEST_F(LatentAttentionShared, TheTraceHoldsQueriesKeysAndValuesOfTheirWidths) {
    const Architecture& c = model->architecture();
    ASSERT_TRUE(c.latent.present());
    EXPECT_EQ(c.headDim, 24);  // qk_rope 8 + qk_nope 16, not config.json's head_dim (8)
    EXPECT_EQ(c.valueWidth(), 16);
    const ForwardResult r = run("learned");
    EXPECT_EQ(r.trace.query(0, 1).cols(), 24);
    EXPECT_EQ(r.trace.key(0, 1).cols(), 24);
    EXPECT_EQ(r.trace.value(0, 1).cols(), 16);
    // Every head's rotary key part is the one shared key.
    for (int h = 1; h < c.heads; ++h)
        EXPECT_EQ(r.trace.key(1, h).leftCols(8), r.trace.key(1, 0).leftCols(8));
}

// shared-qk: each head's keys are its queries, both parts (the rotary one rotated at the key's
// position), so the raw scores q_i·q_j are symmetric: R_i q_i · R_j q_j = q_i · R_(j-i) q_j.
TEST_F(LatentAttentionShared, SharedQkUsesEachHeadsQueriesAsItsKeys) {
    const ForwardResult r = run("shared-qk");
    for (int l = 0; l < r.trace.layerCount(); ++l)
        for (int h = 0; h < r.trace.headCount(l); ++h) {
            EXPECT_EQ(r.trace.key(l, h), r.trace.query(l, h));
            const RowMatrixXf& s = r.trace.scores(l, h);
            // float32 sums of 24 products in two orders, relative to the largest score.
            EXPECT_LE((s - s.transpose()).cwiseAbs().maxCoeff(),
                      1e-6f * (1.0f + s.cwiseAbs().maxCoeff()))
                << "layer " << l << " head " << h;
        }
    for (const char* symmetric : {"sym-scores", "skew-scores", "q=K,k=Q,v=V"})
        EXPECT_NO_THROW(run(symmetric)) << symmetric;
}

TEST_F(LatentAttentionShared, ConfigurationsThatMoveTheValuesAreRefusedWithTheReason) {
    for (const char* configuration : {"tied-kv", "single-w", "q=V,k=K,v=V", "q=Q,k=V,v=V"}) {
        SCOPED_TRACE(configuration);
        try {
            run(configuration);
            ADD_FAILURE() << "ran";
        } catch (const Error& e) {
            const std::string message = e.what();
            EXPECT_NE(message.find("is not defined for multi-head latent attention"),
                      std::string::npos)
                << message;
            EXPECT_NE(message.find("16 wide per head"), std::string::npos) << message;
        }
        EXPECT_FALSE(
            configurationApplies(model->architecture(), WConfiguration::parse(configuration)));
    }
}

// The analysis's per-head forms (latent_forms.h) against what the forward computed: in layer 0
// a token's non-rotary query, key and value are its normed embedding x times the head's form,
// divided by a positive per-token RMS factor, so each is parallel to x·form.
TEST_F(LatentAttentionShared, HeadFormsGiveTheForwardsQueriesKeysAndValuesUpToAScale) {
    const Architecture& c = model->architecture();
    const ForwardResult r = run("learned");
    const LatentHeadForms forms = latentHeadForms(*model, 0);
    const ModelWeights& w = model->weights();
    const std::vector<int> ids = {0, 17, 401, 33, 902, 250, 77};
    const int rope = c.latent.ropeDim, nope = c.latent.nopeDim;
    auto cosine = [](const Eigen::VectorXd& a, const Eigen::VectorXd& b) {
        return a.dot(b) / (a.norm() * b.norm());
    };
    for (size_t i = 0; i < ids.size(); ++i) {
        Eigen::RowVectorXd x(c.dModel);
        for (int j = 0; j < c.dModel; ++j) x(j) = w.tokenEmbedding.at(ids[i], j);
        const double rms = std::sqrt(x.squaredNorm() / c.dModel + c.normEps);
        for (int j = 0; j < c.dModel; ++j) x(j) *= w.layers[0].attentionNorm.gamma[j] / rms;
        for (int h = 0; h < c.heads; ++h) {
            const Eigen::VectorXd q =
                r.trace.query(0, h).row(i).rightCols(nope).transpose().cast<double>();
            const Eigen::VectorXd k =
                r.trace.key(0, h).row(i).rightCols(nope).transpose().cast<double>();
            const Eigen::VectorXd v = r.trace.value(0, h).row(i).transpose().cast<double>();
            // float32 projections of O(1) values: parallel to 1e-5.
            EXPECT_NEAR(cosine(q, (x * forms.form(Projection::Query, h)).transpose()), 1.0, 1e-5)
                << i << " " << h;
            EXPECT_NEAR(cosine(k, (x * forms.form(Projection::Key, h)).transpose()), 1.0, 1e-5)
                << i << " " << h;
            EXPECT_NEAR(cosine(v, (x * forms.form(Projection::Value, h)).transpose()), 1.0, 1e-5)
                << i << " " << h;
        }
    }
    EXPECT_EQ(forms.keyRotary.cols(), rope);
    EXPECT_EQ(latentFormRankBound(c), 16);  // min(query rank 32, latent 16, nope 16)
    const HeadMetrics m =
        analyzeHead(*model, WConfiguration{}, 0, 1, nullptr, {.copyingScores = false});
    EXPECT_LE(m.wqkRank, 16);
    ASSERT_TRUE(m.rotaryPart.has_value());
    EXPECT_LE(m.rotaryPart->rank, rope);
    // Keys and values are read from one latent: their column spaces are the same.
    EXPECT_NEAR(m.kvSimilarity, 1.0, 1e-9);
    // shared-qk: each head's form is W_Q W_Qᵀ, its rotary part too: symmetric.
    const HeadMetrics shared = analyzeHead(*model, WConfiguration::parse("shared-qk"), 0, 1,
                                           nullptr, {.copyingScores = false});
    EXPECT_NEAR(shared.wqkSymmetry, 1.0, 1e-9);
    EXPECT_NEAR(shared.rotaryPart->symmetry, 1.0, 1e-9);
    EXPECT_THROW(analyzeHead(*model, WConfiguration::parse("tied-kv"), 0, 1), Error);
}

// The layer's form is the sum of its heads' non-rotary forms, written out here d_model x d_model.
// Each form is qk_nope_head_dim wide, narrower than the head's d_k (rotary + non-rotary): stacking
// them d_k apart had read past each form, and the layer's numbers changed from run to run.
TEST_F(LatentAttentionShared, LayerFormIsTheSumOfTheHeadsForms) {
    const Architecture& c = model->architecture();
    for (const char* configuration : {"learned", "shared-qk"}) {
        SCOPED_TRACE(configuration);
        const WConfiguration config = WConfiguration::parse(configuration);
        const ModelMetrics metrics =
            analyzeModel(*model, config, nullptr, nullptr, {}, {.copyingScores = false});
        for (int l = 0; l < c.layers; ++l) {
            const LatentHeadForms forms = latentHeadForms(*model, l);
            Eigen::MatrixXd layerForm = Eigen::MatrixXd::Zero(c.dModel, c.dModel);
            for (int h = 0; h < c.heads; ++h)
                layerForm +=
                    forms.form(Projection::Query, h) * forms.form(config.keySource, h).transpose();
            // Both sides in float64 from the same float32 weights: rounding only.
            EXPECT_NEAR(metrics.layers[l].wqkSymmetry, symmetryScore(layerForm), 1e-10) << l;
            EXPECT_NEAR(metrics.layers[l].wqkDirectionality, directionality(layerForm), 1e-9) << l;
        }
        const ModelMetrics again =
            analyzeModel(*model, config, nullptr, nullptr, {}, {.copyingScores = false});
        EXPECT_EQ(again.medianLayerWqkSymmetry, metrics.medianLayerWqkSymmetry);
        EXPECT_EQ(again.medianLayerWqkDirectionality, metrics.medianLayerWqkDirectionality);
    }
}

}  // namespace
}  // namespace qkv
