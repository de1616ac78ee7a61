// OPT-350m's layout on the project's own tiny checkpoint (no Hugging Face reference of it exists
// in ../shared): the forward checked against a textbook double-precision OPT written here from
// Hugging Face's modeling_opt — token embeddings word_embed_proj_dim wide lifted by project_in
// before the positions (row p + 2) are added, post-LayerNorm layers (do_layer_norm_before:
// false), no final norm, project_out before the head tied to the narrow embeddings. Pre-norm OPT
// is checked against Hugging Face's own outputs by forward_reference_test.
#include <gtest/gtest.h>

#include "core/analysis/ov_circuit.h"
#include "core/model/forward.h"
#include "tests/support/fixture_writer.h"
#include "tests/support/textbook.h"

namespace qkv {
namespace {

using Eigen::MatrixXd;
using namespace test::textbook;

struct Reference {
    std::vector<std::vector<MatrixXd>> probabilities;  // [layer][head]
    MatrixXd logits;                                   // positions x vocab
};

Reference referenceOpt350(const Tensors& t, const test::TinyModelSpec& s,
                          const std::vector<int>& ids) {
    const std::string p = "model.decoder.";
    const MatrixXd tokens = matrix(t, p + "embed_tokens.weight");
    const MatrixXd positions = matrix(t, p + "embed_positions.weight");
    MatrixXd words(ids.size(), tokens.cols());
    for (size_t i = 0; i < ids.size(); ++i) words.row(i) = tokens.row(ids[i]);
    MatrixXd x = linear(t, p + "project_in", words, false);
    for (size_t i = 0; i < ids.size(); ++i) x.row(i) += positions.row(i + 2);
    Reference r;
    for (int l = 0; l < s.layers; ++l) {
        const std::string lp = p + "layers." + std::to_string(l) + ".";
        const Attention a = attend(t, lp + "self_attn.", x, x, s.heads, true);
        r.probabilities.push_back(a.probabilities);
        x = layerNorm(t, lp + "self_attn_layer_norm", x + a.output);
        x = layerNorm(t, lp + "final_layer_norm", x + feedForward(t, lp, x, relu));
    }
    r.logits = linear(t, p + "project_out", x, false) * tokens.transpose();
    return r;
}

// float32 against float64 over two post-norm layers of width 32: the differences are float32
// rounding (about 1e-7 relative per operation), far below what a skipped projection, a misplaced
// position or norm changes (order 0.1 in these peaky random weights).
constexpr double kProbabilityTolerance = 1e-5;
constexpr double kLogitTolerance = 1e-4;

TEST(ForwardOpt350, MatchesIndependentReference) {
    test::TempDir dir;
    const test::TinyModelSpec spec;
    test::writeTinyOpt350(dir.path(), spec);
    const auto model = Model::open(dir.path());
    EXPECT_EQ(model->architecture().embeddingWidth, spec.dModel / 2);
    EXPECT_FALSE(model->architecture().preNorm);
    const auto backend = createCpuBackend();
    ForwardRequest request;
    request.ids = {2, 17, 42, 5, 5, 11, 30};
    request.logits = LogitsMode::AllPositions;
    const ForwardResult result = ForwardPass(*model, *backend).run(request);
    const Reference expected = referenceOpt350(test::tinyOpt350Tensors(spec), spec, request.ids);
    for (int l = 0; l < spec.layers; ++l)
        for (int h = 0; h < spec.heads; ++h) {
            SCOPED_TRACE("layer " + std::to_string(l) + " head " + std::to_string(h));
            EXPECT_LE(maxDiff(result.trace.probabilities(l, h), expected.probabilities[l][h]),
                      kProbabilityTolerance);
        }
    EXPECT_LE(maxDiff(result.logits, expected.logits), kLogitTolerance);
}

// The OV copying score's W_U W_E goes through d_model: project_out · (E_wordsᵀ E_words) ·
// project_in, d_model x d_model — not the narrow embeddings' own product.
TEST(ForwardOpt350, VocabularyRoundTripPassesThroughTheProjections) {
    test::TempDir dir;
    const test::TinyModelSpec spec;
    test::writeTinyOpt350(dir.path(), spec);
    const auto model = Model::open(dir.path());
    ThreadPool pool(2);
    const auto roundTrip = vocabularyRoundTrip(*model, pool);
    ASSERT_TRUE(roundTrip.has_value());
    const Tensors t = test::tinyOpt350Tensors(spec);
    const MatrixXd tokens = matrix(t, "model.decoder.embed_tokens.weight");
    const MatrixXd expected = matrix(t, "model.decoder.project_out.weight").transpose() *
                              (tokens.transpose() * tokens) *
                              matrix(t, "model.decoder.project_in.weight").transpose();
    ASSERT_EQ(roundTrip->rows(), spec.dModel);
    ASSERT_EQ(roundTrip->cols(), spec.dModel);
    // The vocabulary's sum is a float32 product of exact terms (ov_circuit.cpp): float32
    // rounding of 50-term sums, within 1e-6 of the largest entry (about 1e-7 here).
    EXPECT_LE((*roundTrip - expected).cwiseAbs().maxCoeff(), 1e-6 * expected.cwiseAbs().maxCoeff());
}

// The projections are named when missing, not read as zeros.
TEST(ForwardOpt350, RefusesACheckpointWithoutProjectIn) {
    test::TempDir dir;
    const test::TinyModelSpec spec;
    test::writeTinyOpt350(dir.path(), spec);
    Tensors tensors = test::tinyOpt350Tensors(spec);
    tensors.erase("model.decoder.project_in.weight");
    test::writeSafetensors(dir.path() / "model.safetensors", tensors);
    const std::string error = test::openingError(dir.path());
    EXPECT_NE(error.find("project_in"), std::string::npos) << error;
}

}  // namespace
}  // namespace qkv
