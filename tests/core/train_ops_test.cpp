// Every backward op of the training code against central finite differences, in double
// precision: L = sum(w * f(theta)) for random w, so dL/dtheta = backward(dy = w).
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "core/train/attention_ops.h"
#include "core/train/layer_ops.h"
#include "core/train/loss_ops.h"
#include "core/train/model_shape.h"
#include "core/train/random.h"
#include "tests/support/tyings.h"

namespace qkv::train {
namespace {

using Vec = std::vector<double>;

Vec randomVector(Random& r, size_t n, double scale = 1.0) {
    Vec v(n);
    for (double& x : v) x = scale * r.normal();
    return v;
}

double dot(const Vec& a, const Vec& b) {
    double s = 0;
    for (size_t i = 0; i < a.size(); ++i) s += a[i] * b[i];
    return s;
}

// Compares `analytic` with central differences of `loss` in every element of `theta`.
void expectGradient(Vec& theta, const Vec& analytic, const std::function<double()>& loss,
                    const char* what) {
    constexpr double h = 1e-5;
    ASSERT_EQ(theta.size(), analytic.size()) << what;
    double worst = 0;
    for (size_t i = 0; i < theta.size(); ++i) {
        const double saved = theta[i];
        theta[i] = saved + h;
        const double up = loss();
        theta[i] = saved - h;
        const double down = loss();
        theta[i] = saved;
        const double numeric = (up - down) / (2 * h);
        const double error = std::abs(numeric - analytic[i]) / std::max(1.0, std::abs(numeric));
        worst = std::max(worst, error);
        EXPECT_LT(error, 1e-7) << what << " element " << i << ": analytic " << analytic[i]
                               << ", numeric " << numeric;
    }
    ::testing::Test::RecordProperty(std::string(what) + "_worst_relative_error",
                                    std::to_string(worst));
}

class TrainOps : public ::testing::Test {
  protected:
    ThreadPool pool{2};
    Random random{42};
};

TEST_F(TrainOps, LinearBackwardMatchesFiniteDifferences) {
    const int rows = 5, in = 4, out = 3;
    Vec x = randomVector(random, rows * in), w = randomVector(random, in * out),
        b = randomVector(random, out), weights = randomVector(random, rows * out);
    auto loss = [&] {
        Vec y(rows * out);
        linearForward<double>(pool, x.data(), rows, in, w.data(), b.data(), out, y.data());
        return dot(y, weights);
    };
    Vec dx(rows * in), dw(in * out, 0.0), db(out, 0.0);
    linearBackward<double>(pool, x.data(), weights.data(), rows, in, out, w.data(), dx.data(),
                           dw.data(), db.data());
    expectGradient(x, dx, loss, "x");
    expectGradient(w, dw, loss, "W");
    expectGradient(b, db, loss, "b");
}

TEST_F(TrainOps, LayerNormBackwardMatchesFiniteDifferences) {
    const int rows = 4, cols = 6;
    Vec x = randomVector(random, rows * cols, 2.0), gamma = randomVector(random, cols),
        beta = randomVector(random, cols), weights = randomVector(random, rows * cols);
    Vec mean(rows), rstd(rows);
    auto loss = [&] {
        Vec y(rows * cols);
        layerNormForward<double>(pool, x.data(), gamma.data(), beta.data(), rows, cols, 1e-5,
                                 y.data(), mean.data(), rstd.data());
        return dot(y, weights);
    };
    loss();
    Vec dx(rows * cols, 0.0), dgamma(cols, 0.0), dbeta(cols, 0.0);
    layerNormBackward<double>(pool, weights.data(), x.data(), gamma.data(), mean.data(),
                              rstd.data(), rows, cols, dx.data(), dgamma.data(), dbeta.data());
    expectGradient(x, dx, loss, "x");
    expectGradient(gamma, dgamma, loss, "gamma");
    expectGradient(beta, dbeta, loss, "beta");
}

TEST_F(TrainOps, GeluBackwardMatchesFiniteDifferences) {
    Vec x = randomVector(random, 40, 2.0), weights = randomVector(random, 40);
    auto loss = [&] {
        Vec y(x.size());
        geluForward<double>(pool, x.data(), y.data(), x.size());
        return dot(y, weights);
    };
    Vec dx(x.size());
    geluBackward<double>(pool, x.data(), weights.data(), dx.data(), x.size());
    expectGradient(x, dx, loss, "x");
}

TEST_F(TrainOps, CrossEntropyBackwardMatchesFiniteDifferences) {
    const int rows = 4, vocab = 7;
    Vec logits = randomVector(random, rows * vocab, 3.0);
    const std::vector<int> targets{0, 6, 3, 3};
    Vec lse(rows);
    auto loss = [&] {
        return crossEntropyForward<double>(pool, logits.data(), targets.data(), rows, vocab,
                                           lse.data());
    };
    loss();
    Vec dlogits(rows * vocab);
    crossEntropyBackward<double>(pool, logits.data(), targets.data(), lse.data(), rows, vocab, 1.0,
                                 dlogits.data());
    expectGradient(logits, dlogits, loss, "logits");
}

TEST_F(TrainOps, CrossEntropyIsTheNegativeLogSoftmax) {
    const std::vector<double> logits{1.0, 2.0, 3.0};
    const int target = 1;
    double lse;
    const double loss = crossEntropyForward<double>(pool, logits.data(), &target, 1, 3, &lse);
    EXPECT_NEAR(loss, std::log(std::exp(1.0) + std::exp(2.0) + std::exp(3.0)) - 2.0, 1e-12);
}

TEST_F(TrainOps, EmbeddingBackwardMatchesFiniteDifferences) {
    const int vocab = 6, length = 4, sequences = 2, d = 3;
    Vec wte = randomVector(random, vocab * d), wpe = randomVector(random, length * d),
        weights = randomVector(random, sequences * length * d);
    const std::vector<int> ids{1, 5, 1, 0, 2, 2, 5, 1};  // repeated ids add up
    auto loss = [&] {
        Vec x(sequences * length * d);
        embedForward<double>(pool, wte.data(), wpe.data(), ids.data(), sequences, length, d,
                             x.data());
        return dot(x, weights);
    };
    Vec dwte(wte.size(), 0.0), dwpe(wpe.size(), 0.0);
    embedBackward<double>(pool, weights.data(), ids.data(), sequences, length, d, dwte.data(),
                          dwpe.data());
    expectGradient(wte, dwte, loss, "wte");
    expectGradient(wpe, dwpe, loss, "wpe");
}

// Attention under every tying: a source used in two slots must get both slots' gradients.
class TrainAttentionOps : public TrainOps, public ::testing::WithParamInterface<const char*> {};

TEST_P(TrainAttentionOps, BackwardMatchesFiniteDifferences) {
    const AttentionTying tying = AttentionTying::parse(GetParam());
    const int sequences = 2, length = 5, heads = 2, headDim = 3, d = heads * headDim;
    const AttentionShape shape = AttentionShape::forTying(tying, sequences, length, heads, headDim);
    const int tokens = sequences * length;
    Vec p = randomVector(random, tokens * shape.projectionStride),
        weights = randomVector(random, tokens * d);
    Vec probs(sequences * heads * length * length);
    auto loss = [&] {
        Vec out(tokens * d);
        attentionForward<double>(pool, shape, p.data(), probs.data(), out.data());
        return dot(out, weights);
    };
    loss();
    Vec dp(p.size(), 0.0);
    attentionBackward<double>(pool, shape, p.data(), probs.data(), weights.data(), dp.data());
    expectGradient(p, dp, loss, "projections");
}

TEST_P(TrainAttentionOps, ProbabilitiesAreCausalAndNormalised) {
    const AttentionTying tying = AttentionTying::parse(GetParam());
    const int length = 6, heads = 2, headDim = 4, d = heads * headDim;
    const AttentionShape shape = AttentionShape::forTying(tying, 1, length, heads, headDim);
    Vec p = randomVector(random, length * shape.projectionStride);
    Vec probs(heads * length * length), out(length * d);
    attentionForward<double>(pool, shape, p.data(), probs.data(), out.data());
    // With the scale outside the softmax, rows sum to 1/sqrt(d_k); Reformer's self mask leaves
    // the diagonal empty except in row 0, where the token has nothing else to see.
    const double rowSum = tying.scaleOutside ? 1.0 / std::sqrt(headDim) : 1.0;
    for (int h = 0; h < heads; ++h)
        for (int i = 0; i < length; ++i) {
            double sum = 0;
            for (int j = 0; j < length; ++j) {
                const double a = probs[(h * length + i) * length + j];
                if (j > i || (tying.reformer && i > 0 && j == i)) {
                    EXPECT_EQ(a, 0.0) << i << ", " << j;
                }
                sum += a;
            }
            EXPECT_NEAR(sum, rowSum, 1e-12);
        }
}

INSTANTIATE_TEST_SUITE_P(Tyings, TrainAttentionOps, test::allTyings(), test::tyingTestName);

}  // namespace
}  // namespace qkv::train
