#include <gtest/gtest.h>

#include <Eigen/QR>
#include <Eigen/SVD>
#include <algorithm>
#include <atomic>
#include <cmath>
#include <random>

#include "core/analysis/head_metrics.h"
#include "core/analysis/matrix_metrics.h"
#include "core/analysis/model_survey.h"
#include "core/model/forward.h"
#include "core/util/error.h"
#include "tests/support/reference.h"
#include "tests/support/shared_assets.h"

namespace qkv {
namespace {

Eigen::MatrixXd randomMatrix(int rows, int cols, unsigned seed) {
    std::mt19937 generator(seed);
    std::normal_distribution<double> normal;
    Eigen::MatrixXd m(rows, cols);
    for (Eigen::Index i = 0; i < m.size(); ++i) m(i) = normal(generator);
    return m;
}

// Scores lie in [-1, 1], so an absolute tolerance is also a relative one at the scale of 1.
constexpr double kExact = 1e-12;

TEST(MatrixMetrics, SymmetryScoreOfSymmetricAndSkewMatrices) {
    const Eigen::MatrixXd r = randomMatrix(30, 30, 1);
    EXPECT_NEAR(symmetryScore(r + r.transpose()), 1.0, kExact);
    EXPECT_NEAR(symmetryScore(r - r.transpose()), -1.0, kExact);
    EXPECT_EQ(symmetryScore(Eigen::MatrixXd::Zero(4, 4)), 0.0);
    EXPECT_THROW(symmetryScore(Eigen::MatrixXd::Ones(3, 4)), Error);
}

TEST(MatrixMetrics, SymmetryScoreOfRandomMatrixIsNearZero) {
    // For n x n standard normal entries the numerator sum_ij m_ij m_ji has mean n and standard
    // deviation about sqrt(2) n, the denominator is about n^2: s = 0.005 +- 0.007 for n = 200.
    EXPECT_LT(std::abs(symmetryScore(randomMatrix(200, 200, 2))), 0.05);
}

TEST(MatrixMetrics, ProductSymmetryScoreEqualsScoreOfExplicitProduct) {
    // Tall factors take the k x k trace formula, wide ones (k > d/2) the explicit product.
    for (auto [d, k] : {std::pair{50, 8}, std::pair{64, 64}, std::pair{10, 8}, std::pair{7, 1}}) {
        const Eigen::MatrixXd a = randomMatrix(d, k, 3);
        const Eigen::MatrixXd noise = randomMatrix(d, k, 4);
        for (const Eigen::MatrixXd& b : {noise, Eigen::MatrixXd(a + 0.5 * noise)}) {
            const double expected = symmetryScore(a * b.transpose());
            EXPECT_NEAR(productSymmetryScore(a, b), expected, 1e-10) << d << " x " << k;
        }
    }
    EXPECT_THROW(productSymmetryScore(randomMatrix(5, 2, 5), randomMatrix(5, 3, 6)), Error);
}

TEST(MatrixMetrics, SharedFactorsGiveSymmetryOne) {
    const Eigen::MatrixXd a = randomMatrix(40, 6, 7);
    EXPECT_NEAR(productSymmetryScore(a, a), 1.0, kExact);
    EXPECT_NEAR(productSymmetryScore(a, -a), 1.0, kExact);
}

TEST(MatrixMetrics, SingularValuesEqualThoseOfExplicitProduct) {
    const int d = 12;
    const int k = 5;
    const Eigen::MatrixXd a = randomMatrix(d, k, 8);
    const Eigen::MatrixXd b = randomMatrix(d, k, 9);
    const ProductSpectrum spectrum = productSpectrum(a, b);
    const Eigen::VectorXd expected =
        Eigen::JacobiSVD<Eigen::MatrixXd>(a * b.transpose()).singularValues();
    ASSERT_EQ(spectrum.singularValues.size(), static_cast<size_t>(k));
    const double scale = expected(0);
    for (int i = 0; i < k; ++i)
        EXPECT_NEAR(spectrum.singularValues[i], expected(i), 1e-12 * scale) << i;
    EXPECT_LT(expected.tail(d - k).maxCoeff(), 1e-12 * scale);  // rank <= k: nothing was dropped
    EXPECT_TRUE(std::is_sorted(spectrum.singularValues.rbegin(), spectrum.singularValues.rend()));
}

// The factors come from their Gram matrices (matrix_metrics.h): singular values above the rank
// tolerance keep double precision, and one that is exactly zero comes out below sqrt(eps) of the
// largest (the bound the header states), far under the tolerance.
TEST(MatrixMetrics, SingularValuesOfADeficientProductAreExactAboveTheTolerance) {
    const int d = 64, k = 16;
    Eigen::MatrixXd a = randomMatrix(d, k, 30);
    a.col(k - 1) = a.col(0) + 2 * a.col(1);
    const Eigen::MatrixXd b = randomMatrix(d, k, 31);
    const ProductSpectrum spectrum = productSpectrum(a, b);
    const Eigen::VectorXd expected =
        Eigen::JacobiSVD<Eigen::MatrixXd>(a * b.transpose()).singularValues();
    const double scale = expected(0);
    for (int i = 0; i < k - 1; ++i)
        EXPECT_NEAR(spectrum.singularValues[i], expected(i), 1e-10 * scale) << i;
    EXPECT_LT(spectrum.singularValues[k - 1], 1.5e-8 * scale);
    EXPECT_EQ(spectrum.rank, k - 1);
}

TEST(MatrixMetrics, RankIsAtMostKAndDropsWithDeficientFactor) {
    const int d = 64;
    const int k = 16;
    Eigen::MatrixXd a = randomMatrix(d, k, 10);
    const Eigen::MatrixXd b = randomMatrix(d, k, 11);
    EXPECT_EQ(productSpectrum(a, b).rank, k);

    a.col(k - 1) = a.col(0) + 2 * a.col(1);  // rank(A) = k - 1, and B^T is onto R^k
    EXPECT_EQ(productSpectrum(a, b).rank, k - 1);
    a.col(k - 2) = a.col(2) - a.col(3);
    EXPECT_EQ(productSpectrum(a, b).rank, k - 2);
    EXPECT_EQ(productSpectrum(Eigen::MatrixXd::Zero(d, k), b).rank, 0);
}

TEST(MatrixMetrics, EigenPositivity) {
    const Eigen::MatrixXd a = randomMatrix(32, 8, 12);
    EXPECT_NEAR(productSpectrum(a, a).eigenPositivity, 1.0, kExact);  // A A^T is PSD
    EXPECT_NEAR(productSpectrum(a, -a).eigenPositivity, -1.0, kExact);

    // x y^T - y x^T is skew-symmetric: purely imaginary eigenvalues.
    const Eigen::MatrixXd x = randomMatrix(32, 1, 13);
    const Eigen::MatrixXd y = randomMatrix(32, 1, 14);
    Eigen::MatrixXd left(32, 2), right(32, 2);
    left << x, y;
    right << y, -x;
    EXPECT_NEAR(symmetryScore(left * right.transpose()), -1.0, kExact);
    EXPECT_NEAR(productSpectrum(left, right).eigenPositivity, 0.0, kExact);
    EXPECT_EQ(productSpectrum(Eigen::MatrixXd::Zero(8, 2), right.topRows(8)).eigenPositivity, 0.0);
}

TEST(MatrixMetrics, SubspaceSimilarityOfSameSpaceIsOne) {
    const Eigen::MatrixXd a = randomMatrix(100, 16, 15);
    EXPECT_NEAR(subspaceSimilarity(a, a), 1.0, kExact);
    const Eigen::MatrixXd mix = randomMatrix(16, 16, 16);  // invertible with probability one
    EXPECT_NEAR(subspaceSimilarity(a, a * mix), 1.0, 1e-10);
}

TEST(MatrixMetrics, SubspaceSimilarityOfRandomSpacesIsAboutKOverD) {
    // Each entry of Qa^T Qb is about N(0, 1/d), so |Qa^T Qb|^2 / k has mean k/d and standard
    // deviation sqrt(2)/d (0.0028 for d = 512): five of those cover every seed here.
    const int d = 512;
    const int k = 16;
    for (unsigned seed = 20; seed < 25; ++seed) {
        const double s =
            subspaceSimilarity(randomMatrix(d, k, seed), randomMatrix(d, k, seed + 100));
        EXPECT_NEAR(s, double(k) / d, 5 * std::sqrt(2.0) / d) << seed;
    }
}

TEST(MatrixMetrics, SubspaceSimilarityOfOrthogonalSpacesIsZero) {
    const int d = 40;
    const int k = 6;
    const Eigen::MatrixXd q =
        Eigen::HouseholderQR<Eigen::MatrixXd>(randomMatrix(d, 2 * k, 30)).householderQ() *
        Eigen::MatrixXd::Identity(d, 2 * k);
    const Eigen::MatrixXd a = q.leftCols(k) * randomMatrix(k, k, 31);
    const Eigen::MatrixXd b = q.rightCols(k) * randomMatrix(k, k, 32);
    EXPECT_NEAR(subspaceSimilarity(a, b), 0.0, kExact);
}

TEST(MatrixMetrics, SubspaceSimilarityWithRankDeficiency) {
    const int d = 50;
    Eigen::MatrixXd a = randomMatrix(d, 8, 40);
    a.col(7) = a.col(0);
    EXPECT_EQ(FactorBasis(a).rank(), 7);
    // Compared through the spaces actually spanned: the same space, or one inside the other.
    EXPECT_NEAR(subspaceSimilarity(a, a), 1.0, kExact);
    Eigen::MatrixXd wider(d, 12);
    wider << a.leftCols(7), randomMatrix(d, 5, 41);
    EXPECT_NEAR(subspaceSimilarity(a, wider), 1.0, 1e-10);
    EXPECT_EQ(subspaceSimilarity(Eigen::MatrixXd::Zero(d, 8), a), 0.0);
    EXPECT_THROW(subspaceSimilarity(a, randomMatrix(d + 1, 8, 42)), Error);
}

TEST(HeadMetrics, BilinearParameterCount) {
    Architecture config;
    config.dModel = 768;
    config.headDim = 64;
    const BilinearParameterCount count = bilinearParameterCount(config);
    EXPECT_EQ(count.factored, 2LL * 768 * 64);
    EXPECT_EQ(count.full, 768LL * 768);
    EXPECT_FALSE(count.oneFactor);
    // shared-qk and single-w: one matrix fills both slots, W Wᵀ.
    for (const char* name : {"shared-qk", "single-w"}) {
        const BilinearParameterCount one =
            bilinearParameterCount(config, WConfiguration::parse(name));
        EXPECT_EQ(one.factored, 768LL * 64) << name;
        EXPECT_TRUE(one.oneFactor) << name;
    }
    EXPECT_EQ(bilinearParameterCount(config, WConfiguration::parse("tied-kv")).factored,
              2LL * 768 * 64);
}

// Model-level checks on the shared random checkpoints: GPT-2's fused row-major c_attn, BERT's and
// Llama's column-major [out, in] weights, Llama's grouped-query heads.
class SharedModelAnalysis : public ::testing::TestWithParam<const char*> {
  protected:
    static std::unique_ptr<Model> open(const std::filesystem::path& shared) {
        return Model::open(shared / "models" / GetParam());
    }
    // A request for the reference's first sentence.
    static ForwardRequest firstSentence(const Model& model) {
        ForwardRequest request;
        request.ids = test::loadReference(model.folder() / "hf_reference.json").sentences[0].ids;
        return request;
    }
};

// Element by element through MatrixView::at, independent of the analysis' own conversion.
Eigen::MatrixXd elementwise(const MatrixView& v) {
    Eigen::MatrixXd m(v.rows, v.cols);
    for (int r = 0; r < v.rows; ++r)
        for (int c = 0; c < v.cols; ++c) m(r, c) = v.at(r, c);
    return m;
}

TEST_P(SharedModelAnalysis, SharedQkGivesSymmetricForms) {
    QKV_REQUIRE_SHARED(shared);
    const auto model = open(shared);
    const ModelMetrics metrics = analyzeModel(*model, WConfiguration::parse("shared-qk"));
    ASSERT_EQ(metrics.layers.size(), static_cast<size_t>(model->architecture().layers));
    EXPECT_NEAR(metrics.medianLayerWqkSymmetry, 1.0, 1e-9);
    for (const LayerMetrics& layer : metrics.layers) {
        EXPECT_NEAR(layer.wqkSymmetry, 1.0, 1e-9);
        ASSERT_EQ(layer.heads.size(), static_cast<size_t>(model->architecture().heads));
        for (const HeadMetrics& head : layer.heads) {
            EXPECT_NEAR(head.wqkSymmetry, 1.0, 1e-9);
            EXPECT_NEAR(head.eigenPositivity, 1.0, 1e-9);
            EXPECT_NEAR(head.qkSimilarity, 1.0, 1e-9);
            EXPECT_FALSE(head.scoreSymmetry.has_value());
        }
    }
}

TEST_P(SharedModelAnalysis, LearnedMetricsAreInRangeAndMatchExplicitProducts) {
    QKV_REQUIRE_SHARED(shared);
    const auto model = open(shared);
    const Architecture& c = model->architecture();
    const WConfiguration learned = WConfiguration::parse("learned");
    const ModelMetrics metrics = analyzeModel(*model, learned);
    std::vector<double> layerScores;
    for (int l = 0; l < c.layers; ++l) {
        const LayerWeights& w = model->weights().layers[l];
        Eigen::MatrixXd layerForm = Eigen::MatrixXd::Zero(c.dModel, c.dModel);
        for (int h = 0; h < c.heads; ++h) {
            const HeadMetrics& head = metrics.layers[l].heads[h];
            // Independent of headProjection: the query and KV head blocks taken directly.
            const Eigen::MatrixXd form =
                elementwise(w.query.weight.columns(h * c.headDim, c.headDim)) *
                elementwise(w.key.weight.columns(h / c.kvGroup() * c.headDim, c.headDim))
                    .transpose();
            layerForm += form;
            EXPECT_NEAR(head.wqkSymmetry, symmetryScore(form), 1e-10);
            EXPECT_GE(head.wqkSymmetry, -1.0);
            EXPECT_LE(head.wqkSymmetry, 1.0);
            EXPECT_EQ(head.wqkRank, c.headDim);  // random initialisation: full rank
            EXPECT_EQ(head.wqkSingularValues.size(), static_cast<size_t>(c.headDim));
            for (double s :
                 {head.eigenPositivity, head.qkSimilarity, head.qvSimilarity, head.kvSimilarity}) {
                EXPECT_GE(s, -1.0);
                EXPECT_LE(s, 1.0);
            }
            EXPECT_GE(head.qkSimilarity, 0.0);
            const HeadMetrics alone = analyzeHead(*model, learned, l, h);
            EXPECT_EQ(alone.wqkSymmetry, head.wqkSymmetry);
            EXPECT_EQ(alone.wqkSingularValues, head.wqkSingularValues);
        }
        EXPECT_NEAR(metrics.layers[l].wqkSymmetry, symmetryScore(layerForm), 1e-10);
        layerScores.push_back(metrics.layers[l].wqkSymmetry);
    }
    std::sort(layerScores.begin(), layerScores.end());
    const size_t mid = layerScores.size() / 2;
    const double median =
        layerScores.size() % 2 ? layerScores[mid] : (layerScores[mid - 1] + layerScores[mid]) / 2;
    EXPECT_DOUBLE_EQ(metrics.medianLayerWqkSymmetry, median);
}

// QK-norm folds its gains into the head's form: M_h = W_Q^h diag(g_q ∘ g_k) W_K^h^T, written out
// here in float64 from the weight and norm tensors (per head: the d_k-wide q_norm/k_norm; OLMo 2:
// the head's slice of the full-width ones; Gemma: the stored 1 + w).
class QkNormAnalysis : public ::testing::TestWithParam<const char*> {};

TEST_P(QkNormAnalysis, FormsFoldTheNormGainsAsTheExplicitProduct) {
    QKV_REQUIRE_SHARED(shared);
    const auto model = Model::open(shared / "models" / GetParam());
    const Architecture& c = model->architecture();
    ASSERT_NE(c.qkNorm, QkNorm::None);
    const WConfiguration learned = WConfiguration::parse("learned");
    const ModelMetrics metrics = analyzeModel(*model, learned);
    const int dk = c.headDim;
    for (int l = 0; l < c.layers; ++l) {
        const LayerWeights& w = model->weights().layers[l];
        Eigen::MatrixXd layerForm = Eigen::MatrixXd::Zero(c.dModel, c.dModel);
        for (int h = 0; h < c.heads; ++h) {
            const int kv = h / c.kvGroup();
            const bool whole = c.qkNorm == QkNorm::Whole;
            Eigen::VectorXd gains(dk);
            for (int i = 0; i < dk; ++i)
                gains(i) = static_cast<double>(w.queryNorm.gamma[(whole ? h * dk : 0) + i]) *
                           w.keyNorm.gamma[(whole ? kv * dk : 0) + i];
            const Eigen::MatrixXd form = elementwise(w.query.weight.columns(h * dk, dk)) *
                                         gains.asDiagonal() *
                                         elementwise(w.key.weight.columns(kv * dk, dk)).transpose();
            layerForm += form;
            const HeadMetrics& head = metrics.layers[l].heads[h];
            // Double-precision reductions over d_model x d_model: 1e-10 leaves room for order.
            EXPECT_NEAR(head.wqkSymmetry, symmetryScore(form), 1e-10);
            Eigen::JacobiSVD<Eigen::MatrixXd> svd(form);
            for (int i = 0; i < dk; ++i)
                EXPECT_NEAR(head.wqkSingularValues[i], svd.singularValues()(i),
                            1e-9 * svd.singularValues()(0));
        }
        EXPECT_NEAR(metrics.layers[l].wqkSymmetry, symmetryScore(layerForm), 1e-10);
    }
    // shared-qk copies q_norm onto the keys too: every form is W_Q diag(g_q²) W_Q^T, symmetric.
    for (const LayerMetrics& layer :
         analyzeModel(*model, WConfiguration::parse("shared-qk")).layers)
        for (const HeadMetrics& head : layer.heads) EXPECT_NEAR(head.wqkSymmetry, 1.0, 1e-9);
}

INSTANTIATE_TEST_SUITE_P(QkNormCheckpoints, QkNormAnalysis,
                         ::testing::Values("qwen3-random-tiny", "gemma3-random-tiny",
                                           "olmo2-random-tiny"));

TEST_P(SharedModelAnalysis, ScoreSymmetryOfSymmetrisedAndSkewScores) {
    QKV_REQUIRE_SHARED(shared);
    const auto model = open(shared);
    const auto backend = createCpuBackend();
    const ForwardPass forward(*model, *backend);
    ForwardRequest request = firstSentence(*model);
    for (auto [name, expected] : {std::pair{"sym-scores", 1.0}, std::pair{"skew-scores", -1.0}}) {
        request.config = WConfiguration::parse(name);
        const ForwardResult result = forward.run(request);
        const ModelMetrics metrics = analyzeModel(*model, request.config, &result.trace);
        for (const LayerMetrics& layer : metrics.layers)
            for (const HeadMetrics& head : layer.heads) {
                ASSERT_TRUE(head.scoreSymmetry.has_value()) << name;
                EXPECT_NEAR(*head.scoreSymmetry, expected, 1e-6) << name;
            }
    }
}

TEST_P(SharedModelAnalysis, ScoreSymmetryOnlyForCapturedHeads) {
    QKV_REQUIRE_SHARED(shared);
    const auto model = open(shared);
    const auto backend = createCpuBackend();
    ForwardRequest request = firstSentence(*model);
    request.capture.layer = 1;
    request.capture.head = 0;
    const ForwardResult result = ForwardPass(*model, *backend).run(request);
    const HeadMetrics captured = analyzeHead(*model, request.config, 1, 0, &result.trace);
    ASSERT_TRUE(captured.scoreSymmetry.has_value());
    EXPECT_GE(*captured.scoreSymmetry, -1.0);
    EXPECT_LE(*captured.scoreSymmetry, 1.0);
    EXPECT_FALSE(
        analyzeHead(*model, request.config, 0, 0, &result.trace).scoreSymmetry.has_value());
    const AttentionTrace otherShape;
    EXPECT_THROW(analyzeModel(*model, request.config, &otherShape), Error);
}

// The weights' metrics (cached per configuration by the app) plus a sentence's score symmetry
// equal the metrics computed with the trace in one go.
TEST_P(SharedModelAnalysis, AddedScoreSymmetryEqualsAnalysisWithTheTrace) {
    QKV_REQUIRE_SHARED(shared);
    const auto model = open(shared);
    const auto backend = createCpuBackend();
    ForwardRequest request = firstSentence(*model);
    request.capture.layer = 1;  // one layer captured: the other's heads stay without
    const ForwardResult result = ForwardPass(*model, *backend).run(request);
    ModelMetrics added = analyzeModel(*model, request.config);
    addTraceMetrics(added, result.trace);
    const ModelMetrics together = analyzeModel(*model, request.config, &result.trace);
    for (size_t l = 0; l < together.layers.size(); ++l)
        for (size_t h = 0; h < together.layers[l].heads.size(); ++h) {
            EXPECT_EQ(added.layers[l].heads[h].scoreSymmetry,
                      together.layers[l].heads[h].scoreSymmetry);
            EXPECT_EQ(added.layers[l].heads[h].scoreSymmetry.has_value(), l == 1);
        }
}

TEST_P(SharedModelAnalysis, TokenPairSimilarity) {
    QKV_REQUIRE_SHARED(shared);
    const auto model = open(shared);
    const auto backend = createCpuBackend();
    ForwardRequest request = firstSentence(*model);
    request.config = WConfiguration::parse("tied-kv");
    const ForwardResult result = ForwardPass(*model, *backend).run(request);
    const AttentionTrace& trace = result.trace;
    const int last = trace.tokens() - 1;
    ASSERT_GT(last, 0);
    const TokenPairSimilarity self = tokenPairSimilarity(trace, 1, 2, last, last);
    EXPECT_NEAR(self.keyCosine, 1.0, 1e-12);
    EXPECT_NEAR(self.valueCosine, 1.0, 1e-12);

    const TokenPairSimilarity pair = tokenPairSimilarity(trace, 1, 2, 0, last);
    const Eigen::VectorXd k0 = trace.key(1, 2).row(0).transpose().cast<double>();
    const Eigen::VectorXd k1 = trace.key(1, 2).row(last).transpose().cast<double>();
    EXPECT_NEAR(pair.keyCosine, k0.dot(k1) / (k0.norm() * k1.norm()), 1e-12);
    // Under tied-kv the values are the keys, except that rotary positions turn only the keys.
    if ((model->architecture().positions == Positions::Learned)) {
        EXPECT_DOUBLE_EQ(pair.keyCosine, pair.valueCosine);
    }
    EXPECT_THROW(tokenPairSimilarity(trace, 1, 2, 0, last + 1), Error);
}

TEST_P(SharedModelAnalysis, CancelStopsBeforeTheNextLayer) {
    QKV_REQUIRE_SHARED(shared);
    const auto model = open(shared);
    const std::atomic<bool> cancel{true};
    EXPECT_THROW(analyzeModel(*model, WConfiguration{}, nullptr, &cancel), Cancelled);
}

INSTANTIATE_TEST_SUITE_P(RandomCheckpoints, SharedModelAnalysis,
                         ::testing::Values("gpt2-random-tiny", "bert-random-tiny",
                                           "llama-random-gqa", "gpt_neox-random-tiny",
                                           "qwen2-random-tiny", "gemma2-random-tiny",
                                           "phi3-random-tiny", "opt-random-tiny",
                                           "roberta-random-tiny", "distilbert-random-tiny"),
                         [](const auto& info) {
                             std::string name = info.param;
                             std::replace(name.begin(), name.end(), '-', '_');
                             return name;
                         });

TEST(HeadMetrics, GroupedQueryHeadsShareTheirKeyValueHead) {
    QKV_REQUIRE_SHARED(shared);
    const auto model = Model::open(shared / "models" / "llama-random-gqa");
    const Architecture& c = model->architecture();
    ASSERT_EQ(c.heads, 4);
    ASSERT_EQ(c.kvHeads, 2);
    const LayerWeights& w = model->weights().layers[1];
    const WConfiguration learned;
    for (int h = 0; h < c.heads; ++h) {
        const MatrixView q = headProjection(*model, learned, 1, h, Projection::Query).view;
        const MatrixView k = headProjection(*model, learned, 1, h, Projection::Key).view;
        const MatrixView v = headProjection(*model, learned, 1, h, Projection::Value).view;
        EXPECT_EQ(q.data, w.query.weight.columns(h * c.headDim, c.headDim).data) << h;
        EXPECT_EQ(k.data, w.key.weight.columns(h / 2 * c.headDim, c.headDim).data) << h;
        EXPECT_EQ(v.data, w.value.weight.columns(h / 2 * c.headDim, c.headDim).data) << h;
        EXPECT_EQ(k.rows, c.dModel);
        EXPECT_EQ(k.cols, c.headDim);
    }
    EXPECT_EQ(headProjection(*model, learned, 1, 0, Projection::Key).view.data,
              headProjection(*model, learned, 1, 1, Projection::Key).view.data);
    EXPECT_NE(headProjection(*model, learned, 1, 1, Projection::Key).view.data,
              headProjection(*model, learned, 1, 2, Projection::Key).view.data);

    // shared-qk: each query head uses its own W_Q as key; tied-kv: V reads the K block.
    const WConfiguration sharedQk = WConfiguration::parse("shared-qk");
    EXPECT_EQ(headProjection(*model, sharedQk, 1, 3, Projection::Key).view.data,
              w.query.weight.columns(3 * c.headDim, c.headDim).data);
    EXPECT_EQ(
        headProjection(*model, WConfiguration::parse("tied-kv"), 1, 3, Projection::Value).view.data,
        w.key.weight.columns(1 * c.headDim, c.headDim).data);
    EXPECT_THROW(headProjection(*model, learned, 2, 0, Projection::Key), Error);
    EXPECT_THROW(headProjection(*model, learned, 0, 4, Projection::Key), Error);
}

// A hybrid's layers without heads (LFM2's short convolutions, Nemotron-H's MLP blocks) have no
// W_QK: the survey's medians pass over them, as analyzeModel's do.
TEST(ModelSurvey, LayersWithoutHeadsArePassedOverInTheMedians) {
    QKV_REQUIRE_SHARED(shared);
    for (const char* name : {"lfm2-random-tiny", "nemotron_h-random-tiny"}) {
        SCOPED_TRACE(name);
        const auto model = Model::open(shared / "models" / name);
        const ModelMetrics metrics = analyzeModel(*model, WConfiguration{});
        const ModelSurvey survey = surveyOf(metrics);
        EXPECT_FALSE(std::isnan(survey.medianLayerSymmetry()));
        EXPECT_DOUBLE_EQ(survey.medianLayerSymmetry(), metrics.medianLayerWqkSymmetry);
        EXPECT_DOUBLE_EQ(survey.medianLayerDirectionality(), metrics.medianLayerWqkDirectionality);
    }
}

}  // namespace
}  // namespace qkv
