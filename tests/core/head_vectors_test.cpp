// The neuron decomposition, the query/key plane and the head's output norms against direct
// computations from the trace and the weights.
#include "core/analysis/head_vectors.h"

#include <gtest/gtest.h>

#include <cmath>

#include "core/analysis/head_metrics.h"
#include "core/model/forward.h"
#include "core/util/error.h"
#include "tests/support/fixture_writer.h"

namespace qkv {
namespace {

class HeadVectors : public testing::Test {
  protected:
    void SetUp() override {
        test::writeTinyGpt2(m_dir.path());
        m_model = Model::open(m_dir.path());
    }
    ForwardResult run(const char* configuration) const {
        ForwardRequest request;
        request.ids = {3, 17, 42, 5, 11, 0};
        request.config = WConfiguration::parse(configuration);
        return ForwardPass(*m_model, *m_backend).run(request);
    }
    test::TempDir m_dir;
    std::unique_ptr<Model> m_model;
    std::unique_ptr<Backend> m_backend = createCpuBackend();
};

TEST_F(HeadVectors, NeuronRowSumsToTheScoresOfTheHeatmapRow) {
    const ForwardResult r = run("learned");
    const Architecture& c = m_model->architecture();
    const double scale = scoreScale(c, WConfiguration{});
    EXPECT_DOUBLE_EQ(scale, 1.0 / std::sqrt(8.0));
    const NeuronRow row = neuronRow(r.trace, 1, 2, 4, scale);
    ASSERT_EQ(row.query.size(), c.headDim);
    ASSERT_EQ(row.products.rows(), 6);
    for (int j = 0; j < 6; ++j) {
        double sum = 0;
        for (int t = 0; t < c.headDim; ++t) sum += row.query(t) * row.keys(j, t);
        EXPECT_NEAR(row.dots(j), sum, 1e-12);
        EXPECT_NEAR(row.products.row(j).sum(), row.dots(j), 1e-12);
        // float32 forward against the double product of its float32 vectors.
        EXPECT_NEAR(row.scaled(j), row.scores(j), 1e-5 * (1 + std::abs(row.scores(j))));
        EXPECT_EQ(row.probabilities(j), r.trace.probabilities(1, 2)(4, j));
    }
    EXPECT_THROW(neuronRow(r.trace, 1, 2, 6, scale), Error);
    EXPECT_THROW(neuronRow(r.trace, 2, 0, 0, scale), Error);
    WConfiguration outside;
    outside.scaleOutside = true;
    EXPECT_EQ(scoreScale(c, outside), 1.0);
}

// Under shared-qk (no rotary positions) every key is its query: the two clouds coincide.
TEST_F(HeadVectors, QueryKeyPlaneOfSharedQkCoincides) {
    const ForwardResult shared = run("shared-qk");
    const QueryKeyPlane plane = queryKeyPlane(shared.trace, 0, 1);
    ASSERT_EQ(plane.queries.rows(), 6);
    EXPECT_LE((plane.queries - plane.keys).cwiseAbs().maxCoeff(), 1e-5);
    EXPECT_GT(plane.explained, 0.0);
    EXPECT_LE(plane.explained, 1.0 + 1e-12);

    const ForwardResult learned = run("learned");
    const QueryKeyPlane apart = queryKeyPlane(learned.trace, 0, 1);
    EXPECT_GT((apart.queries - apart.keys).cwiseAbs().maxCoeff(), 0.1);
    const RowMatrixXf& a = learned.trace.probabilities(0, 1);
    for (int i = 0; i < 6; ++i) {
        Eigen::Index best;
        a.row(i).maxCoeff(&best);
        EXPECT_EQ(apart.attended[i], best);
        EXPECT_LE(apart.attended[i], i);  // causal: never a later token
    }
}

// Pooled over sentences, the plane is that of all their vectors: rows in the samples' order,
// each sample's attended keys offset to its own rows, and one sentence's plane unchanged when it
// is pooled with itself (its points simply appear twice).
TEST_F(HeadVectors, QueryKeyPlanePooledOverSentences) {
    const ForwardResult r = run("learned");
    ForwardRequest other;
    other.ids = {7, 8, 9};
    const ForwardResult r2 = ForwardPass(*m_model, *m_backend).run(other);
    const HeadSample first = headSample(r.trace, 1, 0), second = headSample(r2.trace, 1, 0);
    const QueryKeyPlane pooled = queryKeyPlane({first, second});
    ASSERT_EQ(pooled.queries.rows(), 9);
    ASSERT_EQ(pooled.keys.rows(), 9);
    EXPECT_EQ(pooled.queryCounts, (std::vector<int>{6, 3}));
    for (int i = 0; i < 3; ++i) EXPECT_EQ(pooled.attended[6 + i], 6 + second.attended[i]);
    const QueryKeyPlane single = queryKeyPlane(r.trace, 1, 0);
    const QueryKeyPlane twice = queryKeyPlane({first, first});
    for (int i = 0; i < 6; ++i)  // principal axes are defined up to sign
        for (int a = 0; a < 2; ++a)
            EXPECT_NEAR(std::abs(twice.queries(i, a)), std::abs(single.queries(i, a)), 1e-9);
    EXPECT_NEAR(twice.explained, single.explained, 1e-12);
    EXPECT_THROW(queryKeyPlane(std::vector<HeadSample>{}), Error);
}

TEST_F(HeadVectors, OutputNormsAreThoseOfAVWo) {
    const ForwardResult r = run("learned");
    const MatrixView rows = headOutputRows(*m_model, 1, 3);
    Eigen::MatrixXd wo(rows.rows, rows.cols);
    for (int i = 0; i < rows.rows; ++i)
        for (int j = 0; j < rows.cols; ++j) wo(i, j) = rows.at(i, j);
    const HeadOutputNorms norms = headOutputNorms(r.trace, 1, 3, wo);
    const RowMatrixXf& a = r.trace.probabilities(1, 3);
    const auto v = r.trace.value(1, 3);
    ASSERT_EQ(norms.written.size(), 6u);
    for (int i = 0; i < 6; ++i) {
        Eigen::RowVectorXd out = Eigen::RowVectorXd::Zero(wo.cols());
        for (int j = 0; j < 6; ++j) out += a(i, j) * (v.row(j).cast<double>() * wo);
        EXPECT_NEAR(norms.written[i], out.norm(), 1e-9 * (1 + out.norm()));
    }
    for (int j = 0; j < 6; ++j) {
        const double received = a.col(j).cast<double>().sum();
        EXPECT_NEAR(norms.source[j], received * (v.row(j).cast<double>() * wo).norm(), 1e-9);
    }
    EXPECT_THROW(headOutputNorms(r.trace, 1, 3, wo.topRows(3)), Error);
}

}  // namespace
}  // namespace qkv
