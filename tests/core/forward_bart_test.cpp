// BART on the project's own tiny checkpoint (no Hugging Face reference of BART exists in
// ../shared): the forward checked against a textbook double-precision BART written here from the
// description in core/model/families/bart.cpp — learned positions read at p + 2, a LayerNorm
// over each stack's embeddings, post-norm layers, gelu, logits + final_logits_bias. What BART
// shares with Marian is checked against Hugging Face's own outputs by forward_reference_test.
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <cmath>

#include "core/model/forward.h"
#include "tests/support/fixture_writer.h"

namespace qkv {
namespace {

using Eigen::MatrixXd;
using Eigen::RowVectorXd;
using Tensors = std::map<std::string, test::FixtureTensor>;

MatrixXd matrix(const Tensors& t, const std::string& name) {
    const test::FixtureTensor& f = t.at(name);
    MatrixXd m(f.shape[0], f.values.size() / f.shape[0]);
    for (Eigen::Index r = 0; r < m.rows(); ++r)
        for (Eigen::Index c = 0; c < m.cols(); ++c) m(r, c) = f.values[r * m.cols() + c];
    return m;
}

RowVectorXd row(const Tensors& t, const std::string& name) {
    const test::FixtureTensor& f = t.at(name);
    RowVectorXd v(f.values.size());
    for (Eigen::Index i = 0; i < v.size(); ++i) v(i) = f.values[i];
    return v;
}

// nn.Linear: weight [out, in].
MatrixXd linear(const Tensors& t, const std::string& name, const MatrixXd& x) {
    MatrixXd y = x * matrix(t, name + ".weight").transpose();
    y.rowwise() += row(t, name + ".bias");
    return y;
}

MatrixXd layerNorm(const Tensors& t, const std::string& name, const MatrixXd& x) {
    MatrixXd y(x.rows(), x.cols());
    for (Eigen::Index i = 0; i < x.rows(); ++i) {
        const double mean = x.row(i).mean();
        const double var = (x.row(i).array() - mean).square().mean();
        y.row(i) = ((x.row(i).array() - mean) / std::sqrt(var + 1e-5)).matrix();
    }
    return (y.array().rowwise() * row(t, name + ".weight").array()).rowwise() +
           row(t, name + ".bias").array();
}

struct Attention {
    MatrixXd output;
    std::vector<MatrixXd> probabilities;  // per head, queries x keys
};

// BartAttention: q scaled by d_k^-1/2 before q·k, the decoder's self-attention causal.
Attention attend(const Tensors& t, const std::string& p, const MatrixXd& queries,
                 const MatrixXd& keysValues, int heads, bool causal) {
    const MatrixXd q = linear(t, p + "q_proj", queries), k = linear(t, p + "k_proj", keysValues),
                   v = linear(t, p + "v_proj", keysValues);
    const int dk = static_cast<int>(q.cols()) / heads;
    MatrixXd merged(q.rows(), q.cols());
    Attention result;
    for (int h = 0; h < heads; ++h) {
        MatrixXd a = q.middleCols(h * dk, dk) * k.middleCols(h * dk, dk).transpose() /
                     std::sqrt(static_cast<double>(dk));
        for (Eigen::Index i = 0; i < a.rows(); ++i) {
            const Eigen::Index visible = causal ? i + 1 : a.cols();
            const double m = a.row(i).head(visible).maxCoeff();
            for (Eigen::Index j = 0; j < a.cols(); ++j)
                a(i, j) = j < visible ? std::exp(a(i, j) - m) : 0.0;
            a.row(i) /= a.row(i).sum();
        }
        merged.middleCols(h * dk, dk) = a * v.middleCols(h * dk, dk);
        result.probabilities.push_back(a);
    }
    result.output = linear(t, p + "out_proj", merged);
    return result;
}

MatrixXd feedForward(const Tensors& t, const std::string& p, const MatrixXd& x) {
    const MatrixXd h = linear(t, p + "fc1", x).unaryExpr([](double z) {
        return 0.5 * z * (1 + std::erf(z / std::sqrt(2.0)));
    });
    return linear(t, p + "fc2", h);
}

// Token embedding + the stack's position row p + 2, then the stack's embedding LayerNorm.
MatrixXd embed(const Tensors& t, const std::string& stack, const std::vector<int>& ids) {
    const MatrixXd tokens = matrix(t, "model.shared.weight");
    const MatrixXd positions = matrix(t, "model." + stack + ".embed_positions.weight");
    MatrixXd x(ids.size(), tokens.cols());
    for (size_t i = 0; i < ids.size(); ++i) x.row(i) = tokens.row(ids[i]) + positions.row(i + 2);
    return layerNorm(t, "model." + stack + ".layernorm_embedding", x);
}

struct Reference {
    std::vector<std::vector<MatrixXd>> encoder, decoder, cross;  // [layer][head]
    MatrixXd logits;                                             // target positions x vocab
};

Reference referenceBart(const Tensors& t, const test::TinyModelSpec& s,
                        const std::vector<int>& source, const std::vector<int>& target) {
    Reference r;
    MatrixXd x = embed(t, "encoder", source);
    for (int l = 0; l < s.layers; ++l) {
        const std::string p = "model.encoder.layers." + std::to_string(l) + ".";
        const Attention a = attend(t, p + "self_attn.", x, x, s.heads, false);
        r.encoder.push_back(a.probabilities);
        x = layerNorm(t, p + "self_attn_layer_norm", x + a.output);
        x = layerNorm(t, p + "final_layer_norm", x + feedForward(t, p, x));
    }
    MatrixXd y = embed(t, "decoder", target);
    for (int l = 0; l < s.layers; ++l) {
        const std::string p = "model.decoder.layers." + std::to_string(l) + ".";
        const Attention self = attend(t, p + "self_attn.", y, y, s.heads, true);
        r.decoder.push_back(self.probabilities);
        y = layerNorm(t, p + "self_attn_layer_norm", y + self.output);
        const Attention cross = attend(t, p + "encoder_attn.", y, x, s.heads, false);
        r.cross.push_back(cross.probabilities);
        y = layerNorm(t, p + "encoder_attn_layer_norm", y + cross.output);
        y = layerNorm(t, p + "final_layer_norm", y + feedForward(t, p, y));
    }
    r.logits = y * matrix(t, "model.shared.weight").transpose();
    r.logits.rowwise() += row(t, "final_logits_bias");
    return r;
}

// float32 against float64 over two post-norm layers of width 32: the differences are float32
// rounding (about 1e-7 relative per operation), far below what a misplaced position, norm or
// activation changes (order 0.1 in these peaky random weights).
constexpr double kProbabilityTolerance = 1e-5;
constexpr double kLogitTolerance = 1e-4;

double maxDiff(const RowMatrixXf& actual, const MatrixXd& expected) {
    EXPECT_EQ(actual.rows(), expected.rows());
    EXPECT_EQ(actual.cols(), expected.cols());
    if (actual.rows() != expected.rows() || actual.cols() != expected.cols()) return INFINITY;
    return (actual.cast<double>() - expected).cwiseAbs().maxCoeff();
}

TEST(ForwardBart, MatchesIndependentReference) {
    test::TempDir dir;
    const test::TinyModelSpec spec;
    test::writeTinyBart(dir.path(), spec);
    const auto model = Model::open(dir.path());
    EXPECT_EQ(model->architecture().family, "bart");
    const auto backend = createCpuBackend();
    ForwardRequest request;
    request.ids = {0, 17, 42, 5, 5, 11, 2};  // <s> … </s>
    request.targetIds = {2, 0, 23, 9, 31};   // decoder start, <s>, three tokens
    request.logits = LogitsMode::AllPositions;
    const ForwardResult result = ForwardPass(*model, *backend).run(request);
    const Reference expected =
        referenceBart(test::tinyBartTensors(spec), spec, request.ids, request.targetIds);
    for (int l = 0; l < spec.layers; ++l)
        for (int h = 0; h < spec.heads; ++h) {
            SCOPED_TRACE("layer " + std::to_string(l) + " head " + std::to_string(h));
            EXPECT_LE(maxDiff(result.trace.probabilities(l, h), expected.encoder[l][h]),
                      kProbabilityTolerance);
            EXPECT_LE(maxDiff(result.decoderTrace.probabilities(l, h), expected.decoder[l][h]),
                      kProbabilityTolerance);
            EXPECT_LE(maxDiff(result.crossTrace.probabilities(l, h), expected.cross[l][h]),
                      kProbabilityTolerance);
        }
    EXPECT_LE(maxDiff(result.logits, expected.logits), kLogitTolerance);
}

// A BART checkpoint must carry what the description above names; a missing one is refused by
// name rather than read as zeros.
TEST(ForwardBart, RefusesACheckpointWithoutItsEmbeddingNorm) {
    test::TempDir dir;
    const test::TinyModelSpec spec;
    test::writeTinyBart(dir.path(), spec);
    Tensors tensors = test::tinyBartTensors(spec);
    tensors.erase("model.decoder.layernorm_embedding.weight");
    test::writeSafetensors(dir.path() / "model.safetensors", tensors);
    try {
        Model::open(dir.path());
        FAIL() << "opened a BART without decoder.layernorm_embedding";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("layernorm_embedding"), std::string::npos) << e.what();
    }
}

}  // namespace
}  // namespace qkv
