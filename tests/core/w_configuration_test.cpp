// The named configurations for trained variants: `scale-outside` and `shared-qk-reformer` (K := Q
// with self-masking and unit keys), their names, and the forward under them against direct
// computations on the project's own tiny checkpoints.
#include "core/model/w_configuration.h"

#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>

#include "core/model/forward.h"
#include "core/util/error.h"
#include "tests/support/fixture_writer.h"
#include "tests/support/reference.h"

namespace qkv {
namespace {

using Eigen::MatrixXd;
using test::FixtureTensor;

TEST(WConfigurationNames, SharedQkReformerParsesAndNamesItself) {
    const WConfiguration c = WConfiguration::parse("shared-qk-reformer");
    EXPECT_EQ(c.querySource, Projection::Query);
    EXPECT_EQ(c.keySource, Projection::Query);
    EXPECT_EQ(c.valueSource, Projection::Value);
    EXPECT_EQ(c.transform, ScoreTransform::None);
    EXPECT_TRUE(c.maskSelf);
    EXPECT_TRUE(c.normalizeKeys);
    EXPECT_FALSE(c.scaleOutside);
    EXPECT_EQ(c.name(), "shared-qk-reformer");
    EXPECT_EQ(WConfiguration::parse(c.name()), c);

    // scaleOutside travels beside the name, as for every preset.
    WConfiguration outside = c;
    outside.scaleOutside = true;
    EXPECT_EQ(outside.name(), "shared-qk-reformer");
    // Without the self mask it is another configuration; the unit keys still show in the name.
    WConfiguration unmasked = c;
    unmasked.maskSelf = false;
    EXPECT_EQ(unmasked.name(), "shared-qk (normalized keys)");
    WConfiguration plain = c;
    plain.normalizeKeys = false;
    EXPECT_EQ(plain.name(), "shared-qk");
}

// "scale-outside" is learned with scaleOutside; its name stays "learned" (the configuration
// panel selects its menu entry by name() and keeps the option in its own checkbox).
TEST(WConfigurationNames, ScaleOutsideIsLearnedWithTheOption) {
    const WConfiguration c = WConfiguration::parse("scale-outside");
    WConfiguration expected;
    expected.scaleOutside = true;
    EXPECT_EQ(c, expected);
    EXPECT_EQ(c.name(), "learned");
}

TEST(WConfigurationNames, PresetsRoundTripAndTheMenuIsUnchanged) {
    for (const std::string& name : attentionPresetNames())
        EXPECT_EQ(WConfiguration::parse(name).name(), name);
    const auto& menu = attentionPresetNames();
    EXPECT_EQ(std::count(menu.begin(), menu.end(), "scale-outside"), 0);
    EXPECT_EQ(std::count(menu.begin(), menu.end(), "shared-qk-reformer"), 0);
}

TEST(WConfigurationNames, ErrorListsTheNewNames) {
    try {
        WConfiguration::parse("reformer");
        FAIL() << "accepted an unknown name";
    } catch (const Error& e) {
        const std::string message = e.what();
        EXPECT_NE(message.find("scale-outside"), std::string::npos) << message;
        EXPECT_NE(message.find("shared-qk-reformer"), std::string::npos) << message;
    }
}

// Each head of each row scaled to unit length; a zero head stays zero (no 0/0).
TEST(NormalizeHeads, CpuScalesEachHeadToUnitLength) {
    const std::vector<float> x = {3, 4, 0,  0, 1,    1,  //
                                  0, 0, -2, 0, 0.5f, -0.5f};
    auto backend = createCpuBackend();
    auto in = backend->upload(x.data(), 2, 6);
    auto out = backend->create(2, 6);
    backend->normalizeHeads(*in, 2, kNormalizeHeadsEps, *out);
    std::vector<float> y(12);
    backend->download(*out, y.data());
    const float r = 1 / std::sqrt(2.0f);
    const std::vector<float> expected = {0.6f, 0.8f, 0, 0, r, r, 0, 0, -1, 0, r, -r};
    for (size_t i = 0; i < y.size(); ++i)
        EXPECT_NEAR(y[i], expected[i], 1e-7) << i;  // float32 of a double norm: an ulp
}

using test::toMatrix;
using test::toRow;

// Layer 0 of the tiny GPT-2 in double precision under shared-qk-reformer: k := q / ||q|| per
// head, S = q k^T / sqrt(d_k), causal and self-masked (token 0 keeps itself), softmax.
std::vector<MatrixXd> reformerLayer0(const std::map<std::string, FixtureTensor>& t,
                                     const test::TinyModelSpec& s, const std::vector<int>& ids) {
    const int n = static_cast<int>(ids.size()), d = s.dModel, dk = d / s.heads;
    const MatrixXd wte = toMatrix(t.at("wte.weight")), wpe = toMatrix(t.at("wpe.weight"));
    MatrixXd h(n, d);
    for (int i = 0; i < n; ++i) {
        const Eigen::RowVectorXd x = wte.row(ids[i]) + wpe.row(i);
        const double mean = x.mean();
        const double var = (x.array() - mean).square().mean();
        h.row(i) = ((x.array() - mean) / std::sqrt(var + 1e-5)).matrix();
        h.row(i) =
            h.row(i).cwiseProduct(toRow(t.at("h.0.ln_1.weight"))) + toRow(t.at("h.0.ln_1.bias"));
    }
    MatrixXd qkv = h * toMatrix(t.at("h.0.attn.c_attn.weight"));
    qkv.rowwise() += toRow(t.at("h.0.attn.c_attn.bias"));
    std::vector<MatrixXd> probabilities;
    for (int head = 0; head < s.heads; ++head) {
        const MatrixXd q = qkv.middleCols(head * dk, dk);
        MatrixXd k = q;
        for (int j = 0; j < n; ++j) k.row(j).normalize();
        MatrixXd a = q * k.transpose() / std::sqrt(static_cast<double>(dk));
        for (int i = 0; i < n; ++i) {
            std::vector<int> visible;
            for (int j = 0; j <= i; ++j)
                if (j != i || i == 0) visible.push_back(j);
            double m = -INFINITY;
            for (int j : visible) m = std::max(m, a(i, j));
            Eigen::RowVectorXd row = Eigen::RowVectorXd::Zero(n);
            for (int j : visible) row(j) = std::exp(a(i, j) - m);
            a.row(i) = row / row.sum();
        }
        probabilities.push_back(a);
    }
    return probabilities;
}

const std::vector<int>& kIds = test::kTinyGpt2Ids;

TEST(WConfigurationForward, SharedQkReformerMatchesADirectComputation) {
    const test::TinyModelSpec spec;
    const ForwardResult result =
        test::runTinyGpt2(spec, WConfiguration::parse("shared-qk-reformer"));
    const auto expected = reformerLayer0(test::tinyGpt2Tensors(spec), spec, test::kTinyGpt2Ids);
    for (int h = 0; h < spec.heads; ++h) {
        const RowMatrixXf& a = result.trace.probabilities(0, h);
        // float32 forward against double: the limit of the plain GPT-2 reference test.
        EXPECT_LE((a.cast<double>() - expected[h]).cwiseAbs().maxCoeff(), 1e-5) << "head " << h;
        EXPECT_EQ(a(0, 0), 1.0f);  // token 0 has only itself
        EXPECT_EQ(a(1, 1), 0.0f);  // the others never see themselves
    }
}

class ReformerInvariants : public testing::TestWithParam<bool> {
  protected:
    void SetUp() override {
        test::TinyModelSpec spec;
        if (GetParam()) {  // rotary positions and grouped-query attention
            spec.kvHeads = 2;
            test::writeTinyLlama(m_dir.path(), spec);
        } else {
            test::writeTinyGpt2(m_dir.path(), spec);
        }
        m_model = Model::open(m_dir.path());
    }
    ForwardResult run(const WConfiguration& config) const {
        ForwardRequest request;
        request.ids = kIds;
        request.config = config;
        return ForwardPass(*m_model, *m_backend).run(request);
    }
    test::TempDir m_dir;
    std::unique_ptr<Model> m_model;
    std::unique_ptr<Backend> m_backend = createCpuBackend();
};

// The traced keys are the unit keys the scores used; Q and V keep the raw projections.
TEST_P(ReformerInvariants, KeysAreUnitAndOnlyKeysChange) {
    const ForwardResult reformer = run(WConfiguration::parse("shared-qk-reformer"));
    WConfiguration sharedQk = WConfiguration::parse("shared-qk");
    sharedQk.maskSelf = true;
    const ForwardResult plain = run(sharedQk);
    const Architecture& c = m_model->architecture();
    const double scale = c.attentionScale > 0 ? c.attentionScale : 1.0 / std::sqrt(c.headDim);
    for (int l = 0; l < c.layers; ++l)
        for (int h = 0; h < c.heads; ++h) {
            const Eigen::MatrixXd k = reformer.trace.key(l, h).cast<double>();
            const Eigen::MatrixXd q = reformer.trace.query(l, h).cast<double>();
            // Unit norms in float32: a few ulps of 1.
            EXPECT_LE((k.rowwise().norm().array() - 1.0).abs().maxCoeff(), 1e-6);
            // Scores from the traced vectors: float32 sums of d_k products, relative.
            const Eigen::MatrixXd s = reformer.trace.scores(l, h).cast<double>();
            EXPECT_LE((s - scale * q * k.transpose()).cwiseAbs().maxCoeff(),
                      1e-5 * (1 + s.cwiseAbs().maxCoeff()));
        }
    // Layer 0 sees the same input in both runs: the same queries and values.
    for (int h = 0; h < c.heads; ++h) {
        EXPECT_EQ(RowMatrixXf(reformer.trace.query(0, h)), RowMatrixXf(plain.trace.query(0, h)));
        EXPECT_EQ(RowMatrixXf(reformer.trace.value(0, h)), RowMatrixXf(plain.trace.value(0, h)));
    }
}

// The name is only a spelling of the option: the same forward. Not bit for bit: OpenBLAS splits
// a GEMM by the threads free at the time, so two runs of one forward may differ in the last bits.
TEST_P(ReformerInvariants, ScaleOutsideIsTheOption) {
    WConfiguration option;
    option.scaleOutside = true;
    const ForwardResult named = run(WConfiguration::parse("scale-outside"));
    const ForwardResult expected = run(option);
    for (int l = 0; l < m_model->architecture().layers; ++l)
        for (int h = 0; h < m_model->architecture().heads; ++h)
            EXPECT_LE((named.trace.probabilities(l, h) - expected.trace.probabilities(l, h))
                          .cwiseAbs()
                          .maxCoeff(),
                      1e-6f);
}

INSTANTIATE_TEST_SUITE_P(Layouts, ReformerInvariants, testing::Bool(),
                         [](const testing::TestParamInfo<bool>& info) {
                             return info.param ? "LlamaGqa" : "Gpt2";
                         });

}  // namespace
}  // namespace qkv
