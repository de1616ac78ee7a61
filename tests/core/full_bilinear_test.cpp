// A model the training lab saves under full-bilinear (one d_model x d_model W_h per head) opens:
// its scores are (x_i W_h + c_h) . x_j / sqrt(d_k) computed here from the saved parameters, the
// weight analysis decomposes W_h itself, and only the configurations that act on the scores run.
// (train_run_test checks that its logits reproduce the training forward's.)
#include <gtest/gtest.h>

#include <Eigen/SVD>
#include <cmath>

#include "core/analysis/head_metrics.h"
#include "core/analysis/matrix_metrics.h"
#include "core/model/applicable_configurations.h"
#include "core/model/forward.h"
#include "core/model/model.h"
#include "core/report/json_report.h"
#include "core/train/checkpoint.h"
#include "core/train/parameters.h"
#include "core/train/random.h"
#include "core/util/error.h"
#include "tests/support/fixture_writer.h"
#include "tests/support/tyings.h"

namespace qkv {
namespace {

class FullBilinearModel : public ::testing::Test {
  protected:
    void SetUp() override {
        shape = test::tinyLabShape("full-bilinear");
        const train::ParameterLayout layout(shape);
        params = train::initialParameters(layout, shape, 5);
        // Initial biases are zero; c_h and the value bias get values so the test sees them.
        train::Random random(9);
        for (const auto& layer : layout.layers)
            for (int i = 0; i < shape.attentionColumns(); ++i)
                params[layer.attnBias + i] = static_cast<float>(0.1 * random.normal());
        attnWeight = layout.layers[0].attnWeight;
        attnBias = layout.layers[0].attnBias;
        train::writeConfigJson(shape, 0, dir.path());
        train::writeModelWeights(shape, params, {}, dir.path());
        model = Model::open(dir.path());
        backend = createCpuBackend();
    }

    // Layer 0's W_h as saved: columns h*d .. (h+1)*d of the sources.
    Eigen::MatrixXd bilinearForm(int head) const {
        const int d = shape.dModel, columns = shape.attentionColumns();
        Eigen::MatrixXd w(d, d);
        for (int r = 0; r < d; ++r)
            for (int c = 0; c < d; ++c)
                w(r, c) = params[attnWeight + static_cast<size_t>(r) * columns + head * d + c];
        return w;
    }

    ForwardResult run(const std::string& configuration) const {
        ForwardPass forward(*model, *backend);
        ForwardRequest request;
        request.ids = ids;
        request.config = WConfiguration::parse(configuration);
        return forward.run(request);
    }

    test::TempDir dir;
    train::ModelShape shape;
    std::vector<float> params;
    std::size_t attnWeight = 0, attnBias = 0;
    std::unique_ptr<Model> model;
    std::unique_ptr<Backend> backend;
    std::vector<int> ids = {3, 17, 42, 8, 29, 11, 0};
};

TEST_F(FullBilinearModel, OpensAsHeadsOfWidthDModelWithValuesOfWidthDk) {
    const Architecture& c = model->architecture();
    EXPECT_EQ(c.family, "qkvlab-full-bilinear");
    EXPECT_TRUE(c.bilinearHeads);
    EXPECT_EQ(c.headDim, 32);
    EXPECT_EQ(c.valueWidth(), 16);
    EXPECT_FLOAT_EQ(c.attentionScale, 0.25f);
    // The identity key projection is not a parameter: the count is the trained network's.
    EXPECT_EQ(model->parameterCount(), train::ParameterLayout(shape).count());
    const auto info = modelInfoJson(*model);
    EXPECT_EQ(info["full_bilinear"]["form_width"], 32);
    EXPECT_EQ(info["full_bilinear"]["value_dims"], 16);
}

// Layer 0 reads LayerNorm(wte + wpe) with the initial unit gains and zero shifts.
TEST_F(FullBilinearModel, LayerZeroScoresAreTheBilinearFormOfTheNormedInput) {
    const int d = shape.dModel, n = static_cast<int>(ids.size());
    const train::ParameterLayout layout(shape);
    Eigen::MatrixXd x(n, d);
    for (int i = 0; i < n; ++i) {
        for (int j = 0; j < d; ++j)
            x(i, j) = params[layout.wte + static_cast<size_t>(ids[i]) * d + j] +
                      params[layout.wpe + static_cast<size_t>(i) * d + j];
        const double mean = x.row(i).mean();
        const double variance = (x.row(i).array() - mean).square().mean();
        x.row(i) = (x.row(i).array() - mean) / std::sqrt(variance + 1e-5);
    }
    const ForwardResult r = run("learned");
    for (int h = 0; h < shape.heads; ++h) {
        Eigen::RowVectorXd c(d);
        for (int j = 0; j < d; ++j) c(j) = params[attnBias + h * d + j];
        const Eigen::MatrixXd queries = (x * bilinearForm(h)).rowwise() + c;
        const Eigen::MatrixXd expected = queries * x.transpose() / std::sqrt(16.0);
        const Eigen::MatrixXd got = r.trace.scores(0, h).cast<double>();
        // float32 products of 32 terms against double: 1e-5 of the largest score.
        EXPECT_LE((got - expected).cwiseAbs().maxCoeff(), 1e-5 * expected.cwiseAbs().maxCoeff())
            << "head " << h;
    }
}

TEST_F(FullBilinearModel, AnalysisDecomposesEachHeadsOwnMatrix) {
    for (int h = 0; h < shape.heads; ++h) {
        const Eigen::MatrixXd w = bilinearForm(h);
        const HeadMetrics m = analyzeHead(*model, WConfiguration{}, 0, h);
        const Eigen::VectorXd sigma = Eigen::JacobiSVD<Eigen::MatrixXd>(w).singularValues();
        ASSERT_EQ(m.wqkSingularValues.size(), 32u);
        // Singular values from the Gram factors: within 1e-10 of the largest above the rank
        // cutoff (matrix_metrics.h); a random W_h is far above it.
        for (int i = 0; i < 32; ++i)
            EXPECT_NEAR(m.wqkSingularValues[i], sigma(i), 1e-9 * sigma(0)) << i;
        EXPECT_EQ(m.wqkRank, 32);  // full rank: beyond any factored head's d_k = 16
        EXPECT_NEAR(m.wqkSymmetry, symmetryScore(w), 1e-9);
        EXPECT_NEAR(m.wqkDirectionality, directionality(w), 1e-9);
        EXPECT_LE(m.ovRank, 16);
    }
}

TEST_F(FullBilinearModel, ConfigurationsWithoutWqOrWkAreRefusedWithTheReason) {
    for (const char* configuration :
         {"shared-qk", "tied-kv", "single-w", "shared-qk-reformer", "q=K,k=K,v=V"}) {
        SCOPED_TRACE(configuration);
        EXPECT_FALSE(
            configurationApplies(model->architecture(), WConfiguration::parse(configuration)));
        try {
            run(configuration);
            ADD_FAILURE() << "ran";
        } catch (const Error& e) {
            EXPECT_NE(std::string(e.what()).find("not defined for a full-bilinear model"),
                      std::string::npos)
                << e.what();
        }
    }
}

TEST_F(FullBilinearModel, ScoreConfigurationsRun) {
    const RowMatrixXf learned = run("learned").trace.scores(1, 0);
    const RowMatrixXf symmetric = run("sym-scores").trace.scores(1, 0);
    EXPECT_LE((symmetric - symmetric.transpose()).cwiseAbs().maxCoeff(), 1e-6f);
    EXPECT_GT((learned - learned.transpose()).cwiseAbs().maxCoeff(), 1e-3f);
    const RowMatrixXf skew = run("skew-scores").trace.scores(1, 0);
    EXPECT_LE((skew + skew.transpose()).cwiseAbs().maxCoeff(), 1e-6f);
    const ForwardResult outside = run("scale-outside");
    EXPECT_NEAR(outside.trace.probabilities(0, 0).row(3).sum(), 0.25, 1e-6);
}

}  // namespace
}  // namespace qkv
