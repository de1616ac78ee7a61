// The CPU backend's mixers without a softmax against their definitions, computed here another
// way: Gated DeltaNet's output from its explicit state S_t (dv x dk), Mamba-2's from its
// duality's sum, and the short convolution from its sum.
#include <gtest/gtest.h>

#include <Eigen/Dense>

#include "core/backend/backend.h"
#include "tests/support/random_values.h"

namespace qkv {
namespace {

std::vector<float> downloaded(Backend& be, const Tensor& t) {
    std::vector<float> v(static_cast<size_t>(t.rows()) * t.cols());
    be.download(t, v.data());
    return v;
}

// Every head's output, whether its map is kept or not, is the state recurrence's.
TEST(GatedDeltaRule, OutputIsTheStateRecurrenceAndTheMapReproducesIt) {
    constexpr int n = 11, keyHeads = 2, valueHeads = 4, dk = 8, dv = 6;
    const int qk = keyHeads * dk, vw = valueHeads * dv;
    auto be = createCpuBackend();
    const auto q = test::randomValues(n * qk, 1, 1.0f), k = test::randomValues(n * qk, 2, 1.0f);
    const auto v = test::randomValues(n * vw, 3, 1.0f),
               b = test::randomValues(n * valueHeads, 4, 5.0f);
    const auto a = test::randomValues(n * valueHeads, 5, 3.0f),
               aLog = test::randomValues(valueHeads, 6, 1.5f);
    const auto dtBias = test::randomValues(valueHeads, 7, 1.0f);
    auto rawQ = be->upload(q.data(), n, qk), rawK = be->upload(k.data(), n, qk);
    auto qt = be->create(n, qk), kt = be->create(n, qk);
    be->normalizeHeads(*rawQ, dk, 1e-6f, *qt);
    be->normalizeHeads(*rawK, dk, 1e-6f, *kt);
    const auto unitQ = downloaded(*be, *qt), unitK = downloaded(*be, *kt);
    auto vt = be->upload(v.data(), n, vw);
    auto bt = be->upload(b.data(), n, valueHeads), at = be->upload(a.data(), n, valueHeads);
    auto aLogT = be->upload(aLog.data(), 1, valueHeads);
    auto dtT = be->upload(dtBias.data(), 1, valueHeads);
    auto out = be->create(n, vw);
    std::vector<std::vector<float>> maps(valueHeads, std::vector<float>(n * n, -1.0f));
    // Heads 0 and 2 keep their maps; 1 and 3 are computed from their state alone.
    AttentionCapture capture;
    for (int h = 0; h < valueHeads; ++h)
        capture.probabilities.push_back(h % 2 == 0 ? maps[h].data() : nullptr);
    const float scale = 1.0f / std::sqrt(static_cast<float>(dk));
    be->gatedDeltaRule(*qt, *kt, *vt, *bt, *at, *aLogT, *dtT, {keyHeads, valueHeads, dk, dv, scale},
                       *out, &capture);
    const auto result = downloaded(*be, *out);

    for (int h = 0; h < valueHeads; ++h) {
        const int g = h / (valueHeads / keyHeads);  // repeat_interleave: neighbours share
        Eigen::MatrixXd state = Eigen::MatrixXd::Zero(dv, dk);
        Eigen::MatrixXd values(n, dv);
        for (int t = 0; t < n; ++t) {
            Eigen::VectorXd kv(dk), qv(dk), vv(dv);
            for (int i = 0; i < dk; ++i) {
                kv[i] = unitK[t * qk + g * dk + i];
                qv[i] = unitQ[t * qk + g * dk + i] * static_cast<double>(scale);
            }
            for (int i = 0; i < dv; ++i) vv[i] = values(t, i) = v[t * vw + h * dv + i];
            const double beta = 1.0 / (1.0 + std::exp(-b[t * valueHeads + h]));
            const double x = a[t * valueHeads + h] + dtBias[h];
            const double gamma = std::exp(-std::exp(aLog[h]) * std::log1p(std::exp(x)));
            state =
                gamma * state * (Eigen::MatrixXd::Identity(dk, dk) - beta * kv * kv.transpose()) +
                beta * vv * kv.transpose();
            const Eigen::VectorXd expected = state * qv;
            for (int i = 0; i < dv; ++i)
                EXPECT_NEAR(result[t * vw + h * dv + i], expected[i], 1e-5)
                    << "head " << h << ", token " << t;  // float32 output of a float64 sum
        }
        if (h % 2 == 1) continue;
        // The captured map: zero above the diagonal, and A v is the output.
        Eigen::MatrixXd map(n, n);
        for (int t = 0; t < n; ++t)
            for (int s = 0; s < n; ++s) map(t, s) = maps[h][t * n + s];
        EXPECT_EQ(map.triangularView<Eigen::StrictlyUpper>().toDenseMatrix().cwiseAbs().maxCoeff(),
                  0.0);
        const Eigen::MatrixXd reproduced = map * values;
        for (int t = 0; t < n; ++t)
            for (int i = 0; i < dv; ++i)
                EXPECT_NEAR(reproduced(t, i), result[t * vw + h * dv + i], 1e-5);
    }
}

// Mamba-2's heads against the state-space duality written out here: y_t = Σ_{s≤t} (C_t·B_s)
// exp(Σ_{r=s+1..t} Δ_r A) Δ_s x_s + D x_t, whether a head keeps its map M or not.
TEST(StateSpace, EveryHeadIsTheDualityCapturedOrNot) {
    constexpr int n = 13, heads = 4, groups = 2, p = 5, width = 6;
    auto be = createCpuBackend();
    const auto x = test::randomValues(n * heads * p, 11, 1.0f),
               B = test::randomValues(n * groups * width, 12, 1.0f);
    const auto C = test::randomValues(n * groups * width, 13, 1.0f),
               dt = test::randomValues(n * heads, 14, 2.0f);
    const auto aLog = test::randomValues(heads, 15, 1.0f),
               dtBias = test::randomValues(heads, 16, 1.0f);
    const auto D = test::randomValues(heads, 17, 1.0f);
    auto xt = be->upload(x.data(), n, heads * p), bt = be->upload(B.data(), n, groups * width);
    auto ct = be->upload(C.data(), n, groups * width), dtt = be->upload(dt.data(), n, heads);
    auto aLogT = be->upload(aLog.data(), 1, heads), dtBiasT = be->upload(dtBias.data(), 1, heads);
    auto dT = be->upload(D.data(), 1, heads);
    auto out = be->create(n, heads * p);
    std::vector<std::vector<float>> maps(heads, std::vector<float>(n * n, -1.0f));
    AttentionCapture capture;  // heads 0 and 2 keep M; 1 and 3 run on their state
    for (int h = 0; h < heads; ++h)
        capture.probabilities.push_back(h % 2 == 0 ? maps[h].data() : nullptr);
    be->stateSpace(*xt, *bt, *ct, *dtt, *aLogT, *dtBiasT, *dT, {heads, p, groups, width}, *out,
                   &capture);
    const auto result = downloaded(*be, *out);
    for (int h = 0; h < heads; ++h) {
        const int g = h / (heads / groups);
        const double rate = -std::exp(static_cast<double>(aLog[h]));
        std::vector<double> delta(n);
        for (int t = 0; t < n; ++t) delta[t] = std::log1p(std::exp(dt[t * heads + h] + dtBias[h]));
        for (int t = 0; t < n; ++t) {
            std::vector<double> y(p, 0.0);
            double decay = 1.0;  // exp(Σ_{r=s+1..t} Δ_r A), from s = t down
            for (int s = t; s >= 0; --s) {
                double cb = 0.0;
                for (int i = 0; i < width; ++i)
                    cb += static_cast<double>(C[(t * groups + g) * width + i]) *
                          B[(s * groups + g) * width + i];
                const double weight = cb * decay * delta[s];
                if (h % 2 == 0) {
                    EXPECT_NEAR(maps[h][t * n + s], weight, 1e-5);
                }
                for (int i = 0; i < p; ++i) y[i] += weight * x[(s * heads + h) * p + i];
                decay *= std::exp(delta[s] * rate);
            }
            for (int i = 0; i < p; ++i)  // float32 output of a float64 sum
                EXPECT_NEAR(result[(t * heads + h) * p + i],
                            y[i] + D[h] * x[(t * heads + h) * p + i], 1e-5)
                    << "head " << h << ", token " << t;
        }
    }
}

TEST(CausalConv, IsTheSumOfTheTapsOverTheEarlierTokens) {
    constexpr int n = 7, channels = 5, kernel = 4;
    auto be = createCpuBackend();
    const auto x = test::randomValues(n * channels, 8, 1.0f),
               taps = test::randomValues(channels * kernel, 9, 1.0f);
    auto xt = be->upload(x.data(), n, channels);
    auto tt = be->upload(taps.data(), 1, channels * kernel);
    auto y = be->create(n, channels);
    be->causalConv(*xt, *tt, nullptr, *y);
    const auto result = downloaded(*be, *y);
    for (int t = 0; t < n; ++t)
        for (int c = 0; c < channels; ++c) {
            double expected = 0.0;  // tap kernel-1 reads token t, tap 0 token t-kernel+1
            for (int back = 0; back < kernel && back <= t; ++back)
                expected += static_cast<double>(taps[c * kernel + kernel - 1 - back]) *
                            x[(t - back) * channels + c];
            EXPECT_NEAR(result[t * channels + c], expected, 1e-6);
        }
}

}  // namespace
}  // namespace qkv
