// Directionality, the OV circuit and the GQA pairing (issue "every view"): each against a direct
// computation on small matrices, the identities that define them, and on the shared models
// against the full d_model x d_model (or vocabulary x vocabulary) products the factored routes
// avoid.
#include <gtest/gtest.h>

#include <Eigen/Eigenvalues>
#include <Eigen/SVD>
#include <algorithm>
#include <random>

#include "core/analysis/head_metrics.h"
#include "core/analysis/matrix_metrics.h"
#include "core/analysis/ov_circuit.h"
#include "core/util/error.h"
#include "tests/support/fixture_writer.h"
#include "tests/support/shared_assets.h"

namespace qkv {
namespace {

using Eigen::MatrixXd;

MatrixXd randomMatrix(int rows, int cols, unsigned seed) {
    std::mt19937 generator(seed);
    std::normal_distribution<double> normal;
    MatrixXd m(rows, cols);
    for (Eigen::Index i = 0; i < m.size(); ++i) m(i) = normal(generator);
    return m;
}

// Element by element through MatrixView::at, independent of the analysis' own conversion.
MatrixXd elementwise(const MatrixView& v) {
    MatrixXd m(v.rows, v.cols);
    for (int r = 0; r < v.rows; ++r)
        for (int c = 0; c < v.cols; ++c) m(r, c) = v.at(r, c);
    return m;
}

// The definition written out element by element, as Saponati et al.'s scores.py states it.
double directionalityByHand(const MatrixXd& m) {
    const auto excess = [](const std::vector<double>& norms) {
        double mean = 0;
        for (double x : norms) mean += x;
        mean /= norms.size();
        double squares = 0;
        for (double x : norms) squares += (x - mean) * (x - mean);
        const double threshold = mean + 2 * std::sqrt(squares / (norms.size() - 1));
        double sum = 0;
        for (double x : norms)
            if (x > threshold) sum += x - threshold;
        return sum;
    };
    std::vector<double> rows(m.rows()), cols(m.cols());
    for (Eigen::Index i = 0; i < m.rows(); ++i) rows[i] = m.row(i).norm();
    for (Eigen::Index j = 0; j < m.cols(); ++j) cols[j] = m.col(j).norm();
    const double r = excess(rows), c = excess(cols);
    return r + c > 0 ? (c - r) / (c + r) : 0.0;
}

// Scores lie in [-1, 1]; double-precision routes agree to rounding.
constexpr double kExact = 1e-10;

TEST(Directionality, MatchesTheDefinitionAndTheFactoredRoute) {
    // Heavy-tailed rows and columns, so some norms pass mean + 2 std.
    MatrixXd m = randomMatrix(40, 40, 3);
    m.col(7) *= 6;
    m.row(2) *= 3;
    EXPECT_NEAR(directionality(m), directionalityByHand(m), kExact);
    EXPECT_GT(directionality(m), 0.0);  // a key column stands out more than a query row
    EXPECT_LT(directionality(m.transpose()), 0.0);
    EXPECT_NEAR(directionality(m.transpose()), -directionality(m), kExact);
    for (int k : {5, 30}) {  // the Gram route (k < d/2) and the formed product
        const MatrixXd a = randomMatrix(40, k, 10 + k), b = randomMatrix(40, k, 20 + k);
        MatrixXd aa = a;
        aa.row(4) *= 5;
        EXPECT_NEAR(productDirectionality(aa, b), directionalityByHand(aa * b.transpose()), kExact)
            << k;
        // shared-qk: M = A A^T is symmetric, its row and column norms equal.
        EXPECT_NEAR(productDirectionality(aa, aa), 0.0, kExact) << k;
    }
    // A key factor without full column rank (a zero column: its Gram matrix has an exact zero
    // pivot, so no Cholesky factor): the row norms come from the Gram matrix itself.
    MatrixXd deficient = randomMatrix(40, 5, 30);
    deficient.col(4).setZero();
    MatrixXd queries = randomMatrix(40, 5, 31);
    queries.row(4) *= 5;
    EXPECT_NEAR(productDirectionality(queries, deficient),
                directionalityByHand(queries * deficient.transpose()), kExact);
    EXPECT_NEAR(productDirectionality(deficient, queries),
                directionalityByHand(deficient * queries.transpose()), kExact);
    EXPECT_EQ(directionality(MatrixXd::Zero(5, 5)), 0.0);
    EXPECT_THROW(directionality(MatrixXd::Ones(3, 4)), Error);
    EXPECT_THROW(productDirectionality(MatrixXd::Ones(3, 2), MatrixXd::Ones(4, 2)), Error);
}

TEST(OvCircuit, SpectrumAndCopyingScoreMatchTheFullProducts) {
    const int d = 12, dk = 4, vocab = 30;
    const MatrixXd value = randomMatrix(d, dk, 1), outputRows = randomMatrix(dk, d, 2);
    const MatrixXd embedding = randomMatrix(vocab, d, 3), unembedding = randomMatrix(d, vocab, 4);
    const MatrixXd roundTrip = unembedding * embedding;
    const OvCircuit ov = ovCircuit(value, outputRows, &roundTrip);
    const MatrixXd wov = value * outputRows;
    const Eigen::VectorXd sigma = Eigen::JacobiSVD<MatrixXd>(wov).singularValues();
    ASSERT_EQ(ov.singularValues.size(), static_cast<size_t>(dk));
    for (int i = 0; i < dk; ++i) EXPECT_NEAR(ov.singularValues[i], sigma(i), 1e-10 * sigma(0));
    EXPECT_EQ(ov.rank, dk);
    ASSERT_TRUE(ov.copyingScore.has_value());
    // The vocabulary circuit itself, 30 x 30, whose extra eigenvalues are zeros.
    EXPECT_NEAR(*ov.copyingScore, eigenPositivity(embedding * wov * unembedding), 1e-9);
    EXPECT_FALSE(ovCircuit(value, outputRows, nullptr).copyingScore.has_value());
}

TEST(OvCircuit, CopyingScoreOfAPositiveDefiniteCircuitIsOne) {
    // W_OV = P P^T and a tied unembedding W_U = W_E^T: W_E W_OV W_E^T = (W_E P)(W_E P)^T.
    const int d = 10, dk = 3, vocab = 25;
    const MatrixXd p = randomMatrix(d, dk, 5), embedding = randomMatrix(vocab, d, 6);
    const MatrixXd roundTrip = embedding.transpose() * embedding;
    EXPECT_NEAR(*ovCircuit(p, p.transpose(), &roundTrip).copyingScore, 1.0, kExact);
    // W_OV = -P P^T writes the opposite of the token: -1.
    EXPECT_NEAR(*ovCircuit(p, -p.transpose(), &roundTrip).copyingScore, -1.0, kExact);
    // A rank-deficient head: its rank says so.
    MatrixXd deficient = p;
    deficient.col(2) = deficient.col(0) + deficient.col(1);
    EXPECT_EQ(ovCircuit(deficient, p.transpose(), &roundTrip).rank, 2);
}

// W_U W_E summed over blocks of the vocabulary (5,000 rows: three blocks) equals the product.
TEST(OvCircuit, VocabularyRoundTripOverBlocks) {
    test::TempDir dir;
    test::TinyModelSpec spec;
    spec.vocab = 5000;
    test::writeTinyGpt2(dir.path(), spec);
    const auto model = Model::open(dir.path());
    ThreadPool pool(2);
    const auto roundTrip = vocabularyRoundTrip(*model, pool);
    ASSERT_TRUE(roundTrip.has_value());
    const MatrixXd e = elementwise(model->weights().tokenEmbedding);
    // Each block is a float32 product of exact float32 terms summed in double: its roundings
    // are those of float32 sums of 2048 terms, within 1e-6 of the largest entry (a double
    // product would be within 1e-12; summing in float32 over the whole vocabulary, 1e-5).
    const MatrixXd exact = e.transpose() * e;
    EXPECT_LE((*roundTrip - exact).cwiseAbs().maxCoeff(), 1e-6 * exact.cwiseAbs().maxCoeff());
}

class SharedCircuits : public ::testing::TestWithParam<const char*> {};

// Per head and per layer against the full d_model x d_model matrices: directionality of
// W_Q^h W_K^h^T and of the layer's sum, the SVD of W_OV, and the copying score from the
// eigenvalues of W_OV (W_U W_E), whose nonzero ones are the vocabulary circuit's.
TEST_P(SharedCircuits, MetricsMatchTheFullProducts) {
    QKV_REQUIRE_SHARED(shared);
    const auto model = Model::open(shared / "models" / GetParam());
    const Architecture& c = model->architecture();
    const WConfiguration learned;
    const ModelMetrics metrics = analyzeModel(*model, learned);
    ThreadPool pool(1);
    const auto roundTrip = vocabularyRoundTrip(*model, pool);
    for (int l = 0; l < c.layers; ++l) {
        MatrixXd layerForm = MatrixXd::Zero(c.dModel, c.dModel);
        for (int h = 0; h < c.heads; ++h) {
            SCOPED_TRACE("layer " + std::to_string(l) + " head " + std::to_string(h));
            const HeadMetrics& head = metrics.layers[l].heads[h];
            const MatrixXd form =
                elementwise(headProjection(*model, learned, l, h, Projection::Query).view) *
                elementwise(headProjection(*model, learned, l, h, Projection::Key).view)
                    .transpose();
            layerForm += form;
            EXPECT_NEAR(head.wqkDirectionality, directionalityByHand(form), kExact);
            const MatrixXd wov =
                elementwise(headProjection(*model, learned, l, h, Projection::Value).view) *
                elementwise(headOutputRows(*model, l, h));
            const Eigen::VectorXd sigma = Eigen::JacobiSVD<MatrixXd>(wov).singularValues();
            ASSERT_EQ(head.ovSingularValues.size(), static_cast<size_t>(c.headDim));
            for (int i = 0; i < c.headDim; ++i)
                EXPECT_NEAR(head.ovSingularValues[i], sigma(i), 1e-9 * sigma(0));
            EXPECT_EQ(head.ovRank, c.headDim);  // random weights: full rank
            ASSERT_EQ(head.ovCopyingScore.has_value(), roundTrip.has_value());
            // The analysis forms (W_U W_E) W_V in float32 (head_metrics.cpp): its rounding moves
            // the scores by about 2e-8 here.
            if (roundTrip) {
                EXPECT_NEAR(*head.ovCopyingScore, eigenPositivity(wov * *roundTrip), 1e-7);
            }
        }
        EXPECT_NEAR(metrics.layers[l].wqkDirectionality, directionalityByHand(layerForm), kExact);
    }
}

INSTANTIATE_TEST_SUITE_P(RandomCheckpoints, SharedCircuits,
                         ::testing::Values("gpt2-random-tiny", "bert-random-tiny",
                                           "llama-random-gqa", "gemma2-random-tiny"),
                         [](const auto& info) {
                             std::string name = info.param;
                             std::replace(name.begin(), name.end(), '-', '_');
                             return name;
                         });

// Modulo pairing reads key head h % kv_heads: on a 4-head, 2-KV model heads 1 and 2 swap blocks.
TEST(GqaPairing, ModuloPairsQueryHeadsWithOtherKeyHeads) {
    QKV_REQUIRE_SHARED(shared);
    const auto model = Model::open(shared / "models" / "llama-random-gqa");
    const Architecture& c = model->architecture();
    ASSERT_EQ(c.kvHeads, 2);
    const LayerWeights& w = model->weights().layers[0];
    const WConfiguration learned;
    for (int h = 0; h < c.heads; ++h)
        EXPECT_EQ(headProjection(*model, learned, 0, h, Projection::Key, AttentionKind::Self,
                                 GqaPairing::Modulo)
                      .view.data,
                  w.key.weight.columns(h % 2 * c.headDim, c.headDim).data)
            << h;
    // A head's output rows are rows h·d_k .. h·d_k + d_k − 1 of the output projection.
    const MatrixView rows = headOutputRows(*model, 0, 3);
    ASSERT_EQ(rows.rows, c.headDim);
    for (int r = 0; r < c.headDim; ++r)
        for (int col = 0; col < c.dModel; col += 7)
            EXPECT_EQ(rows.at(r, col), w.output.weight.at(3 * c.headDim + r, col));
    const ModelMetrics hf = analyzeModel(*model, learned);
    const ModelMetrics modulo =
        analyzeModel(*model, learned, nullptr, nullptr, {}, {.pairing = GqaPairing::Modulo});
    // Heads 0 and 3 read the same block either way; heads 1 and 2 do not.
    EXPECT_EQ(hf.layers[0].heads[0].wqkSymmetry, modulo.layers[0].heads[0].wqkSymmetry);
    EXPECT_NE(hf.layers[0].heads[1].wqkSymmetry, modulo.layers[0].heads[1].wqkSymmetry);
    EXPECT_NE(hf.layers[0].wqkSymmetry, modulo.layers[0].wqkSymmetry);
}

}  // namespace
}  // namespace qkv
