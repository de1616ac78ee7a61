// The mixture of experts: the routing as Hugging Face decides it, worked by hand, and the
// block on the CPU backend against the same sum written out in double.
#include "core/model/mixture_of_experts.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "core/model/forward.h"
#include "core/model/routing.h"
#include "tests/support/shared_assets.h"

namespace qkv {
namespace {

// Logits 0, ln 2, ln 3, 0 give probabilities 1/7, 2/7, 3/7, 1/7.
TEST(Routing, TopTwoByProbabilityThenRenormalised) {
    const float logits[] = {0.0f, std::log(2.0f), std::log(3.0f), 0.0f};
    const auto normalized = routeBySoftmax(logits, 1, 4, 2, true);
    ASSERT_EQ(normalized.size(), 1u);
    ASSERT_EQ(normalized[0].size(), 2u);
    EXPECT_EQ(normalized[0][0].expert, 2);
    EXPECT_NEAR(normalized[0][0].weight, 0.6f, 1e-6f);  // 3/7 / (5/7)
    EXPECT_EQ(normalized[0][1].expert, 1);
    EXPECT_NEAR(normalized[0][1].weight, 0.4f, 1e-6f);
    const auto raw = routeBySoftmax(logits, 1, 4, 2, false);
    EXPECT_NEAR(raw[0][0].weight, 3.0f / 7.0f, 1e-6f);
    EXPECT_NEAR(raw[0][1].weight, 2.0f / 7.0f, 1e-6f);
}

TEST(Routing, EqualLogitsGoToTheLowerExperts) {
    const float logits[] = {0.5f, 0.5f, 0.5f, 0.5f, 2.0f, 0.5f, 0.5f, 2.0f};
    const auto routed = routeBySoftmax(logits, 2, 4, 3, true);
    ASSERT_EQ(routed.size(), 2u);
    EXPECT_EQ(routed[0][0].expert, 0);
    EXPECT_EQ(routed[0][1].expert, 1);
    EXPECT_EQ(routed[0][2].expert, 2);
    EXPECT_NEAR(routed[0][0].weight, 1.0f / 3.0f, 1e-6f);
    EXPECT_EQ(routed[1][0].expert, 0);  // 2.0 at experts 0 and 3: the lower first
    EXPECT_EQ(routed[1][1].expert, 3);
    EXPECT_EQ(routed[1][2].expert, 1);
}

// gpt-oss's router: logits 0, ln 2, ln 3, 0 -> experts 2 and 1, weighed 3/5 and 2/5.
TEST(Routing, TopLogitsWeighedBySoftmaxOverThemAlone) {
    const float logits[] = {0.0f, std::log(2.0f), std::log(3.0f), 0.0f, -1.0f, 4.0f, 4.0f, 3.0f};
    const auto routed = routeByTopLogits(logits, 2, 4, 2);
    ASSERT_EQ(routed.size(), 2u);
    ASSERT_EQ(routed[0].size(), 2u);
    EXPECT_EQ(routed[0][0].expert, 2);
    EXPECT_NEAR(routed[0][0].weight, 0.6f, 1e-6f);
    EXPECT_EQ(routed[0][1].expert, 1);
    EXPECT_NEAR(routed[0][1].weight, 0.4f, 1e-6f);
    EXPECT_EQ(routed[1][0].expert, 1);  // 4.0 at experts 1 and 2: the lower first
    EXPECT_EQ(routed[1][1].expert, 2);
    EXPECT_NEAR(routed[1][0].weight, 0.5f, 1e-6f);
}

float logit(double p) { return static_cast<float>(std::log(p / (1.0 - p))); }  // sigmoid⁻¹

// DeepSeek-V3's router. Sigmoid scores .9 .1 | .6 .5 | .8 .7 | .2 .3 in four groups of two; the
// choice bias lifts expert 2 by .5. Groups by the sum of their two choice values: 1.0, 1.6, 1.5,
// .5; the best two (experts 2-5) are eligible, so expert 0 (the highest score) is not. Top two
// choices: experts 2 (1.1) and 4 (.8), weighed by their scores .6 and .8 renormalised, × 2.5.
TEST(Routing, DeepSeekV3ChoosesWithinTheBestGroupsAndWeighsByScore) {
    const float logits[] = {logit(0.9), logit(0.1), logit(0.6), logit(0.5),
                            logit(0.8), logit(0.7), logit(0.2), logit(0.3)};
    const float bias[] = {0, 0, 0.5f, 0, 0, 0, 0, 0};
    GroupedRouting rule;
    rule.sigmoid = true;
    rule.groups = 4;
    rule.groupsKept = 2;
    rule.groupBest = 2;
    rule.perToken = 2;
    rule.normalize = true;
    rule.scale = 2.5f;
    rule.choiceBias = bias;
    const auto routed = routeByGroups(logits, 1, 8, rule);
    ASSERT_EQ(routed[0].size(), 2u);
    EXPECT_EQ(routed[0][0].expert, 4);  // heaviest first
    EXPECT_NEAR(routed[0][0].weight, 2.5 * 0.8 / 1.4, 1e-6);
    EXPECT_EQ(routed[0][1].expert, 2);
    EXPECT_NEAR(routed[0][1].weight, 2.5 * 0.6 / 1.4, 1e-6);
}

// Hugging Face masks the experts outside the kept groups with 0, not -inf: where the kept
// group's choice values are negative (a negative bias), a masked expert still wins a place.
// Choices .4 -.3 -.2 (sum of the best two .2) | .05 .05 .05 (.1): the first group is kept, and
// the second pick is expert 3 (0, ties to the lower index) over expert 2 (-.2).
TEST(Routing, DeepSeekV3MasksOtherGroupsWithZeroAsHuggingFaceDoes) {
    const float logits[] = {logit(0.9), logit(0.3), logit(0.2), logit(0.5), logit(0.5), logit(0.5)};
    const float bias[] = {-0.5f, -0.6f, -0.4f, -0.45f, -0.45f, -0.45f};
    GroupedRouting rule;
    rule.sigmoid = true;
    rule.groups = 2;
    rule.groupBest = 2;
    rule.perToken = 2;
    rule.choiceBias = bias;
    const auto routed = routeByGroups(logits, 1, 6, rule);
    EXPECT_EQ(routed[0][0].expert, 0);
    EXPECT_NEAR(routed[0][0].weight, 0.9, 1e-6);  // not renormalised, scale 1
    EXPECT_EQ(routed[0][1].expert, 3);
    EXPECT_NEAR(routed[0][1].weight, 0.5, 1e-6);
}

// DeepSeek-V2's group-limited greedy routing: softmax probabilities 1/10 .. 4/10 over experts
// [1 4 | 2 3] (logits ln 1 .. ln 4), groups ranked by their best: the first (0.4) is kept, so
// expert 1 (0.4) and expert 0 (0.1) are chosen, never renormalised, times 2.
TEST(Routing, DeepSeekV2GroupLimitedGreedyRanksGroupsByTheirBest) {
    const float logits[] = {0.0f, std::log(4.0f), std::log(2.0f), std::log(3.0f)};
    GroupedRouting rule;
    rule.groups = 2;
    rule.perToken = 2;
    rule.scale = 2.0f;
    const auto routed = routeByGroups(logits, 1, 4, rule);
    EXPECT_EQ(routed[0][0].expert, 1);
    EXPECT_NEAR(routed[0][0].weight, 0.8, 1e-6);
    EXPECT_EQ(routed[0][1].expert, 0);
    EXPECT_NEAR(routed[0][1].weight, 0.2, 1e-6);
}

// Gate clamped above at 7, up to [-7, 7]; out = (up + 1) · gate · sigmoid(1.702 gate).
TEST(ClampedSwiGlu, ClampsGateAndUpAsGptOssDoes) {
    const float pairs[] = {10.0f, -9.0f, -3.0f, 0.5f, 2.0f, 8.0f, 0.0f, -1.0f};
    auto backend = createCpuBackend();
    auto in = backend->upload(pairs, 2, 4);
    auto out = backend->create(2, 2);
    backend->clampedSwiGlu(*in, *out);
    float got[4];
    backend->download(*out, got);
    auto expected = [](double gate, double up) {
        return (up + 1.0) * gate / (1.0 + std::exp(-1.702 * gate));
    };
    // float32 arithmetic on values of a few units: a few ulps.
    EXPECT_NEAR(got[0], expected(7.0, -7.0), 1e-5);
    EXPECT_NEAR(got[1], expected(-3.0, 0.5), 1e-6);
    EXPECT_NEAR(got[2], expected(2.0, 7.0), 1e-5);
    EXPECT_NEAR(got[3], expected(0.0, -1.0), 1e-7);
}

std::vector<float> randomValues(std::size_t count, unsigned seed) {
    std::mt19937 engine(seed);
    std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
    std::vector<float> values(count);
    for (float& v : values) v = uniform(engine);
    return values;
}

// y = x W for row-major x (rows x in) and W (in x out), in double.
std::vector<double> product(const std::vector<double>& x, int rows, const std::vector<float>& w,
                            int in, int out) {
    std::vector<double> y(static_cast<std::size_t>(rows) * out, 0.0);
    for (int r = 0; r < rows; ++r)
        for (int i = 0; i < in; ++i)
            for (int o = 0; o < out; ++o) y[r * out + o] += x[r * in + i] * w[i * out + o];
    return y;
}

TEST(MixtureOfExperts, EqualsTheRoutedSumWrittenOut) {
    const int tokens = 7, d = 8, width = 5, experts = 4;
    Architecture c;
    c.dModel = d;
    c.activation = Activation::SwiGlu;
    c.moe = {experts, 2, width, true};
    auto backend = createCpuBackend();
    // Kept alive for the views the backend wraps.
    std::vector<std::vector<float>> weights;
    auto bound = [&](int in, int out, unsigned seed) {
        weights.push_back(randomValues(static_cast<std::size_t>(in) * out, seed));
        DeviceLinear linear;
        linear.weight = backend->weight(MatrixView::rowMajor(weights.back().data(), in, out));
        return linear;
    };
    DeviceLayer layer;
    layer.router = bound(d, experts, 1);
    for (int e = 0; e < experts; ++e)
        layer.experts.push_back(
            {bound(d, width, 10 + e), bound(d, width, 20 + e), bound(width, d, 30 + e)});
    const std::vector<float> x = randomValues(static_cast<std::size_t>(tokens) * d, 2);
    std::vector<TokenRouting> routing;
    auto out = mixtureOfExperts(*backend, c, layer, *backend->upload(x.data(), tokens, d), routing);
    std::vector<float> got(static_cast<std::size_t>(tokens) * d);
    backend->download(*out, got.data());

    // The same in double: softmax over the router's logits, the two most probable experts,
    // renormalised, and each expert's down(silu(gate x) · up x) weighted.
    const std::vector<double> xd(x.begin(), x.end());
    const std::vector<double> logits = product(xd, tokens, weights[0], d, experts);
    ASSERT_EQ(routing.size(), static_cast<std::size_t>(tokens));
    int expertsUsed = 0;
    std::vector<bool> used(experts, false);
    for (int t = 0; t < tokens; ++t) {
        std::vector<double> p(experts);
        double sum = 0.0;
        for (int e = 0; e < experts; ++e) sum += p[e] = std::exp(logits[t * experts + e]);
        int first = 0, second = -1;
        for (int e = 1; e < experts; ++e)
            if (p[e] > p[first]) first = e;
        for (int e = 0; e < experts; ++e)
            if (e != first && (second < 0 || p[e] > p[second])) second = e;
        ASSERT_EQ(routing[t].size(), 2u);
        EXPECT_EQ(routing[t][0].expert, first);
        EXPECT_EQ(routing[t][1].expert, second);
        const std::vector<double> token(xd.begin() + t * d, xd.begin() + (t + 1) * d);
        std::vector<double> expected(d, 0.0);
        for (int e : {first, second}) {
            used[e] = true;
            const double w = p[e] / (p[first] + p[second]);
            EXPECT_NEAR(routing[t][e == first ? 0 : 1].weight, w, 1e-6);
            const auto up = product(token, 1, weights[1 + 3 * e], d, width);
            const auto gate = product(token, 1, weights[2 + 3 * e], d, width);
            std::vector<double> hidden(width);
            for (int j = 0; j < width; ++j)
                hidden[j] = gate[j] / (1.0 + std::exp(-gate[j])) * up[j];
            const auto down = product(hidden, 1, weights[3 + 3 * e], width, d);
            for (int j = 0; j < d; ++j) expected[j] += w * down[j];
        }
        // float32 products of at most 8 terms in [-1, 1] against double: 1e-5 absolute.
        for (int j = 0; j < d; ++j) EXPECT_NEAR(got[t * d + j], expected[j], 1e-5) << t << "," << j;
    }
    for (bool u : used) expertsUsed += u;
    EXPECT_GE(expertsUsed, 3);  // the seeds route the tokens to several experts
}

// The trace keeps every layer's routing, the last layer's too when no logits are asked (the layer
// then routes its tokens but skips its experts); a forward that keeps a prefix takes the kept
// tokens' routing over from the earlier one and routes the rest as the whole forward does.
TEST(MixtureOfExperts, TheTraceKeepsEveryLayersRouting) {
    QKV_REQUIRE_SHARED(shared);
    const auto model = Model::open(shared / "models" / "qwen3_moe-random-tiny");
    auto backend = createCpuBackend();
    const ForwardPass pass(*model, *backend);
    ForwardRequest request;
    request.ids = {3, 14, 15, 92, 65};
    request.logits = LogitsMode::None;
    const ForwardResult whole = pass.run(request);
    ASSERT_EQ(whole.trace.layerCount(), 2);
    for (const LayerTrace& layer : whole.trace.layers()) {
        ASSERT_EQ(layer.routing.size(), 5u);
        for (const TokenRouting& token : layer.routing) EXPECT_EQ(token.size(), 2u);
    }
    // The same operations up to the router as a forward that runs the last layer whole for its
    // logits: the same experts and weights, to the bit.
    ForwardRequest withLogits = request;
    withLogits.logits = LogitsMode::LastPosition;
    const ForwardResult full = pass.run(withLogits);
    for (int l = 0; l < 2; ++l)
        for (size_t t = 0; t < 5; ++t)
            for (size_t i = 0; i < 2; ++i) {
                EXPECT_EQ(whole.trace.layers()[l].routing[t][i].expert,
                          full.trace.layers()[l].routing[t][i].expert);
                EXPECT_EQ(whole.trace.layers()[l].routing[t][i].weight,
                          full.trace.layers()[l].routing[t][i].weight);
            }
    ForwardRequest prefix = request;
    prefix.ids.resize(3);
    KeptVectors vectors;
    const ForwardResult earlier = pass.run(prefix, &vectors);
    const ForwardResult reused = pass.runAfter(request, earlier, vectors, 3);
    for (int l = 0; l < 2; ++l) {
        const auto& expected = whole.trace.layers()[l].routing;
        const auto& actual = reused.trace.layers()[l].routing;
        ASSERT_EQ(actual.size(), expected.size());
        for (size_t t = 0; t < expected.size(); ++t)
            for (size_t i = 0; i < expected[t].size(); ++i) {
                EXPECT_EQ(actual[t][i].expert, expected[t][i].expert) << l << "," << t;
                // the same float32 router products over fewer rows: 1e-6
                EXPECT_NEAR(actual[t][i].weight, expected[t][i].weight, 1e-6) << l << "," << t;
            }
    }
}

}  // namespace
}  // namespace qkv
