// The forward pass on the project's own tiny checkpoints (no ../shared needed): a GPT-2 checked
// against an independent double-precision implementation written here, and the invariants
// every configuration and option must satisfy on GPT-2, BERT and Llama (GQA) layouts.
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <cmath>

#include "core/model/forward.h"
#include "tests/support/fixture_writer.h"
#include "tests/support/reference.h"

namespace qkv {
namespace {

using Eigen::MatrixXd;
using test::FixtureTensor;

using test::toMatrix;
using test::toRow;

MatrixXd layerNorm(const MatrixXd& x, const FixtureTensor& g, const FixtureTensor& b) {
    MatrixXd y(x.rows(), x.cols());
    for (Eigen::Index i = 0; i < x.rows(); ++i) {
        const double mean = x.row(i).mean();
        const double var = (x.row(i).array() - mean).square().mean();
        y.row(i) = ((x.row(i).array() - mean) / std::sqrt(var + 1e-5)).matrix();
        y.row(i) = y.row(i).cwiseProduct(toRow(g)) + toRow(b);
    }
    return y;
}

// Textbook GPT-2 in double precision: returns attention probabilities [layer][head].
std::vector<std::vector<MatrixXd>> referenceGpt2(const std::map<std::string, FixtureTensor>& t,
                                                 const test::TinyModelSpec& s,
                                                 const std::vector<int>& ids) {
    const int n = static_cast<int>(ids.size()), d = s.dModel, dk = d / s.heads;
    MatrixXd x(n, d);
    const MatrixXd wte = toMatrix(t.at("wte.weight")), wpe = toMatrix(t.at("wpe.weight"));
    for (int i = 0; i < n; ++i) x.row(i) = wte.row(ids[i]) + wpe.row(i);
    std::vector<std::vector<MatrixXd>> attention;
    for (int l = 0; l < s.layers; ++l) {
        const std::string p = "h." + std::to_string(l) + ".";
        const MatrixXd h = layerNorm(x, t.at(p + "ln_1.weight"), t.at(p + "ln_1.bias"));
        MatrixXd qkv = h * toMatrix(t.at(p + "attn.c_attn.weight"));
        qkv.rowwise() += toRow(t.at(p + "attn.c_attn.bias"));
        MatrixXd merged(n, d);
        attention.emplace_back();
        for (int head = 0; head < s.heads; ++head) {
            const MatrixXd q = qkv.middleCols(head * dk, dk);
            const MatrixXd k = qkv.middleCols(d + head * dk, dk);
            const MatrixXd v = qkv.middleCols(2 * d + head * dk, dk);
            MatrixXd a = (q * k.transpose()) / std::sqrt(static_cast<double>(dk));
            for (int i = 0; i < n; ++i) {
                const double m = a.row(i).head(i + 1).maxCoeff();
                double sum = 0;
                for (int j = 0; j < n; ++j) sum += a(i, j) = j <= i ? std::exp(a(i, j) - m) : 0.0;
                a.row(i) /= sum;
            }
            merged.middleCols(head * dk, dk) = a * v;
            attention.back().push_back(a);
        }
        MatrixXd out = merged * toMatrix(t.at(p + "attn.c_proj.weight"));
        out.rowwise() += toRow(t.at(p + "attn.c_proj.bias"));
        x += out;
        MatrixXd f = layerNorm(x, t.at(p + "ln_2.weight"), t.at(p + "ln_2.bias")) *
                     toMatrix(t.at(p + "mlp.c_fc.weight"));
        f.rowwise() += toRow(t.at(p + "mlp.c_fc.bias"));
        f = f.unaryExpr([](double z) {
            return 0.5 * z * (1 + std::tanh(std::sqrt(2 / M_PI) * (z + 0.044715 * z * z * z)));
        });
        MatrixXd g = f * toMatrix(t.at(p + "mlp.c_proj.weight"));
        g.rowwise() += toRow(t.at(p + "mlp.c_proj.bias"));
        x += g;
    }
    return attention;
}

const std::vector<int>& kIds = test::kTinyGpt2Ids;

TEST(ForwardFixture, Gpt2MatchesIndependentReference) {
    const test::TinyModelSpec spec;
    const ForwardResult result = test::runTinyGpt2(spec);
    const auto expected = referenceGpt2(test::tinyGpt2Tensors(spec), spec, test::kTinyGpt2Ids);
    for (int l = 0; l < spec.layers; ++l)
        for (int h = 0; h < spec.heads; ++h) {
            const RowMatrixXf& a = result.trace.probabilities(l, h);
            EXPECT_LE((a.cast<double>() - expected[l][h]).cwiseAbs().maxCoeff(), 1e-5)
                << "layer " << l << " head " << h;
        }
}

enum class Layout { Gpt2, Bert, LlamaGqa };

class ForwardInvariants : public testing::TestWithParam<Layout> {
  protected:
    void SetUp() override {
        test::TinyModelSpec spec;
        switch (GetParam()) {
            case Layout::Gpt2:
                test::writeTinyGpt2(m_dir.path(), spec);
                break;
            case Layout::Bert:
                test::writeTinyBert(m_dir.path(), spec);
                break;
            case Layout::LlamaGqa:
                spec.kvHeads = 2;
                test::writeTinyLlama(m_dir.path(), spec);
                break;
        }
        m_model = Model::open(m_dir.path());
        m_pass = std::make_unique<ForwardPass>(*m_model, *m_backend);
    }

    ForwardResult run(const std::string& configuration, bool scaleOutside = false,
                      bool maskSelf = false) const {
        ForwardRequest request;
        request.ids = kIds;
        request.config = WConfiguration::parse(configuration);
        request.config.scaleOutside = scaleOutside;
        request.config.maskSelf = maskSelf;
        return m_pass->run(request);
    }

    bool causal() const { return m_model->architecture().causal; }
    int layers() const { return m_model->architecture().layers; }
    int heads() const { return m_model->architecture().heads; }

    test::TempDir m_dir;
    std::unique_ptr<Model> m_model;
    std::unique_ptr<Backend> m_backend = createCpuBackend();
    std::unique_ptr<ForwardPass> m_pass;
};

// Rows sum to one, masked cells are exactly zero, and A is the masked softmax of the captured S.
TEST_P(ForwardInvariants, ProbabilitiesAreTheMaskedSoftmaxOfScores) {
    const ForwardResult r = run("learned");
    const int n = static_cast<int>(kIds.size());
    for (int l = 0; l < layers(); ++l)
        for (int h = 0; h < heads(); ++h) {
            const RowMatrixXf& a = r.trace.probabilities(l, h);
            const RowMatrixXf& s = r.trace.scores(l, h);
            for (int i = 0; i < n; ++i) {
                EXPECT_NEAR(a.row(i).sum(), 1.0f, 1e-5f);
                const int visible = causal() ? i + 1 : n;
                const Eigen::VectorXd row = s.row(i).head(visible).cast<double>().transpose();
                const Eigen::VectorXd e = (row.array() - row.maxCoeff()).exp();
                for (int j = 0; j < n; ++j) {
                    if (j >= visible) {
                        EXPECT_EQ(a(i, j), 0.0f);
                    } else {
                        EXPECT_NEAR(a(i, j), e(j) / e.sum(), 1e-6);
                    }
                }
            }
        }
}

// Shared-QK makes every score matrix symmetric (rotary embeddings included: R_i^T R_j depends
// on j - i only), and the symmetric/skew transforms do what they say.
TEST_P(ForwardInvariants, ScoreSymmetryOfConfigurations) {
    for (const char* configuration : {"shared-qk", "single-w", "sym-scores"}) {
        const ForwardResult r = run(configuration);
        for (int l = 0; l < layers(); ++l)
            for (int h = 0; h < heads(); ++h) {
                const RowMatrixXf& s = r.trace.scores(l, h);
                EXPECT_LE((s - s.transpose()).cwiseAbs().maxCoeff(),
                          1e-4f * (1 + s.cwiseAbs().maxCoeff()))
                    << configuration << " layer " << l << " head " << h;
            }
    }
    const ForwardResult skew = run("skew-scores");
    for (int l = 0; l < layers(); ++l)
        for (int h = 0; h < heads(); ++h) {
            const RowMatrixXf& s = skew.trace.scores(l, h);
            EXPECT_LE((s + s.transpose()).cwiseAbs().maxCoeff(), 1e-6f);
            EXPECT_EQ(s.diagonal().cwiseAbs().maxCoeff(), 0.0f);
        }
}

TEST_P(ForwardInvariants, LearnedIsSymmetricOnlyByAccident) {
    const ForwardResult r = run("learned");
    const RowMatrixXf& s = r.trace.scores(0, 0);
    EXPECT_GT((s - s.transpose()).cwiseAbs().maxCoeff(), 1e-2f);
}

// Tied slots hold the same projections; the first layer sees identical inputs in both runs.
TEST_P(ForwardInvariants, TiedSlotsShareProjections) {
    const ForwardResult tied = run("tied-kv");
    const ForwardResult learned = run("learned");
    const bool rotary = m_model->architecture().positions == Positions::Rotary;
    for (int h = 0; h < heads(); ++h) {
        if (!rotary) {
            EXPECT_EQ(RowMatrixXf(tied.trace.value(0, h)), RowMatrixXf(learned.trace.key(0, h)));
        }
        EXPECT_EQ(RowMatrixXf(tied.trace.query(0, h)), RowMatrixXf(learned.trace.query(0, h)));
    }
    const ForwardResult single = run("single-w");
    for (int h = 0; h < heads(); ++h) {
        EXPECT_EQ(RowMatrixXf(single.trace.key(0, h)), RowMatrixXf(single.trace.query(0, h)));
        if (!rotary) {
            EXPECT_EQ(RowMatrixXf(single.trace.value(0, h)), RowMatrixXf(single.trace.query(0, h)));
        }
    }
}

// Swapping the Q and K slots transposes the score matrix. That holds with rotary embeddings
// too (R_i^T R_j = R_(j-i) = R_(i-j)^T) and with grouped heads (query head h pairs its own
// slot-Q head with slot-K head h / group either way).
TEST_P(ForwardInvariants, SwappedSlotsTransposeScores) {
    const ForwardResult learned = run("learned");
    const ForwardResult swapped = run("q=K,k=Q,v=V");
    const RowMatrixXf& a = learned.trace.scores(0, 1);
    const RowMatrixXf& b = swapped.trace.scores(0, 1);
    EXPECT_LE((a.transpose() - b).cwiseAbs().maxCoeff(), 1e-5f);
}

TEST_P(ForwardInvariants, ScaleOutsideAndMaskSelf) {
    const ForwardResult outside = run("learned", true, false);
    const float scale = 1.0f / std::sqrt(static_cast<float>(m_model->architecture().headDim));
    const int n = static_cast<int>(kIds.size());
    for (int i = 0; i < n; ++i)
        EXPECT_NEAR(outside.trace.probabilities(0, 0).row(i).sum(), scale, 1e-5f);
    // Scores are then unscaled: sqrt(d_k) times the default ones in the first layer.
    const ForwardResult inside = run("learned");
    EXPECT_LE(
        (outside.trace.scores(0, 0) * scale - inside.trace.scores(0, 0)).cwiseAbs().maxCoeff(),
        1e-4f);

    const ForwardResult masked = run("learned", false, true);
    for (int l = 0; l < layers(); ++l)
        for (int h = 0; h < heads(); ++h) {
            const RowMatrixXf& a = masked.trace.probabilities(l, h);
            for (int i = 0; i < n; ++i) {
                // Reformer: the first causal token has only itself to attend to, and keeps it.
                if (causal() && i == 0) {
                    EXPECT_FLOAT_EQ(a(0, 0), 1.0f);
                } else {
                    EXPECT_EQ(a(i, i), 0.0f);
                }
                EXPECT_NEAR(a.row(i).sum(), 1.0f, 1e-5f);
            }
        }
}

TEST_P(ForwardInvariants, CaptureSelectionKeepsOnlyTheChosenHead) {
    ForwardRequest request;
    request.ids = kIds;
    request.capture.layer = 1;
    request.capture.head = 2;
    request.capture.scores = false;
    const ForwardResult r = m_pass->run(request);
    const ForwardResult all = run("learned");
    for (int l = 0; l < layers(); ++l)
        for (int h = 0; h < heads(); ++h) {
            EXPECT_EQ(r.trace.hasProbabilities(l, h), l == 1 && h == 2);
            EXPECT_FALSE(r.trace.hasScores(l, h));
        }
    EXPECT_EQ(r.trace.probabilities(1, 2), all.trace.probabilities(1, 2));
    EXPECT_THROW(r.trace.scores(1, 2), Error);
}

// Without logits the last layer's output projection and MLP are skipped: the trace is the same
// bit for bit (the same operations on the same inputs), and no logits come back.
TEST_P(ForwardInvariants, WithoutLogitsTheTraceIsTheSame) {
    ForwardRequest request;
    request.ids = kIds;
    request.logits = LogitsMode::AllPositions;
    const ForwardResult withLogits = m_pass->run(request);
    request.logits = LogitsMode::None;
    const ForwardResult without = m_pass->run(request);
    EXPECT_EQ(without.logits.size(), 0);
    ASSERT_EQ(without.trace.layerCount(), layers());
    for (int l = 0; l < layers(); ++l) {
        const LayerTrace& a = without.trace.layers()[l];
        const LayerTrace& b = withLogits.trace.layers()[l];
        EXPECT_EQ(a.query, b.query);
        EXPECT_EQ(a.key, b.key);
        EXPECT_EQ(a.value, b.value);
        for (int h = 0; h < heads(); ++h) {
            EXPECT_EQ(a.scores[h], b.scores[h]);
            EXPECT_EQ(a.probabilities[h], b.probabilities[h]);
        }
    }
}

TEST_P(ForwardInvariants, RejectsBadInput) {
    ForwardRequest request;
    EXPECT_THROW(m_pass->run(request), Error);  // empty
    request.ids.assign(m_model->architecture().contextLength + 1, 1);
    try {
        m_pass->run(request);
        FAIL() << "expected an error";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("exceed the model's context of 16"), std::string::npos)
            << e.what();
    }
    request.ids = {1, 50};
    EXPECT_THROW(m_pass->run(request), Error);  // vocabulary has 50 entries
    request.ids = {1, -1};
    EXPECT_THROW(m_pass->run(request), Error);
    request.ids = {1, 2};
    request.tokenTypes = {0};
    EXPECT_THROW(m_pass->run(request), Error);
}

TEST_P(ForwardInvariants, CancelStopsBeforeTheFirstLayer) {
    std::atomic<bool> cancel{true};
    ForwardRequest request;
    request.ids = kIds;
    request.cancel = &cancel;
    EXPECT_THROW(m_pass->run(request), Cancelled);
}

INSTANTIATE_TEST_SUITE_P(Layouts, ForwardInvariants,
                         testing::Values(Layout::Gpt2, Layout::Bert, Layout::LlamaGqa),
                         [](const testing::TestParamInfo<Layout>& info) {
                             switch (info.param) {
                                 case Layout::Gpt2:
                                     return "Gpt2";
                                 case Layout::Bert:
                                     return "Bert";
                                 case Layout::LlamaGqa:
                                     return "LlamaGqa";
                             }
                             return "";
                         });

}  // namespace
}  // namespace qkv
