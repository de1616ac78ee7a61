// BART on the project's own tiny checkpoint (no Hugging Face reference of BART exists in
// ../shared): the forward checked against a textbook double-precision BART written here from the
// description in core/model/families/bart.cpp — learned positions read at p + 2, a LayerNorm
// over each stack's embeddings, post-norm layers, gelu, logits + final_logits_bias. What BART
// shares with Marian is checked against Hugging Face's own outputs by forward_reference_test.
#include <gtest/gtest.h>

#include "core/model/forward.h"
#include "tests/support/fixture_writer.h"
#include "tests/support/textbook.h"

namespace qkv {
namespace {

using Eigen::MatrixXd;
using namespace test::textbook;

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

// One post-norm attention sublayer (`name` is self_attn or encoder_attn): its probabilities are
// kept, the normalised residual returned.
MatrixXd attentionSublayer(const Tensors& t, const std::string& p, const std::string& name,
                           const MatrixXd& x, const MatrixXd& memory, int heads, bool causal,
                           std::vector<std::vector<MatrixXd>>& kept) {
    const Attention a = attend(t, p + name + ".", x, memory, heads, causal);
    kept.push_back(a.probabilities);
    return layerNorm(t, p + name + "_layer_norm", x + a.output);
}

Reference referenceBart(const Tensors& t, const test::TinyModelSpec& s,
                        const std::vector<int>& source, const std::vector<int>& target) {
    Reference r;
    MatrixXd x = embed(t, "encoder", source);
    for (int l = 0; l < s.layers; ++l) {
        const std::string p = "model.encoder.layers." + std::to_string(l) + ".";
        x = attentionSublayer(t, p, "self_attn", x, x, s.heads, false, r.encoder);
        x = layerNorm(t, p + "final_layer_norm", x + feedForward(t, p, x, gelu));
    }
    MatrixXd y = embed(t, "decoder", target);
    for (int l = 0; l < s.layers; ++l) {
        const std::string p = "model.decoder.layers." + std::to_string(l) + ".";
        y = attentionSublayer(t, p, "self_attn", y, y, s.heads, true, r.decoder);
        y = attentionSublayer(t, p, "encoder_attn", y, x, s.heads, false, r.cross);
        y = layerNorm(t, p + "final_layer_norm", y + feedForward(t, p, y, gelu));
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
    const std::string error = test::openingError(dir.path());
    EXPECT_NE(error.find("layernorm_embedding"), std::string::npos) << error;
}

}  // namespace
}  // namespace qkv
