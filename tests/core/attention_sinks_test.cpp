// gpt-oss's attention sinks on the CPU backend: each head's sink logit joins every row's softmax
// as one more column that is then dropped, so probabilities are exp(s_ij) / (sum_j exp(s_ij) +
// exp(sink)) over the visible keys (checked in double), and a row falls short of one by the
// sink's share. Captured scores are the plain scaled products.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "core/backend/backend.h"
#include "tests/support/random_values.h"

namespace qkv {
namespace {

TEST(AttentionSinks, EachRowSharesItsSoftmaxWithTheHeadsSink) {
    const int n = 6, heads = 2, dk = 4;
    const auto q = test::randomValues(n * heads * dk, 1, 1.5f),
               k = test::randomValues(n * heads * dk, 2, 1.5f);
    const auto v = test::randomValues(n * heads * dk, 3, 1.0f);
    const std::vector<float> sinkLogits = {0.8f, -2.5f};
    auto be = createCpuBackend();
    auto qt = be->upload(q.data(), n, heads * dk), kt = be->upload(k.data(), n, heads * dk);
    auto vt = be->upload(v.data(), n, heads * dk), out = be->create(n, heads * dk);
    auto sinks = be->upload(sinkLogits.data(), 1, heads);
    AttentionOptions options;
    options.window = 4;  // a sliding layer's mask, as gpt-oss alternates
    options.sinks = sinks.get();
    std::vector<std::vector<float>> scores(heads, std::vector<float>(n * n));
    std::vector<std::vector<float>> probabilities = scores;
    AttentionCapture capture{{scores[0].data(), scores[1].data()},
                             {probabilities[0].data(), probabilities[1].data()}};
    be->attention(*qt, *kt, *vt, {heads, dk}, options, *out, &capture);

    for (int h = 0; h < heads; ++h)
        for (int i = 0; i < n; ++i) {
            std::vector<double> s(n);
            double sum = std::exp(static_cast<double>(sinkLogits[h]));
            for (int j = i - 3 < 0 ? 0 : i - 3; j <= i; ++j) {
                for (int c = 0; c < dk; ++c)
                    s[j] += double(q[i * heads * dk + h * dk + c]) * k[j * heads * dk + h * dk + c];
                s[j] /= 2.0;  // 1 / sqrt(d_k)
                sum += std::exp(s[j]);
            }
            double row = 0.0;
            for (int j = 0; j < n; ++j) {
                const bool visible = j <= i && j > i - 4;
                const double expected = visible ? std::exp(s[j]) / sum : 0.0;
                // float32 softmax of values of a few units: a few ulps of one.
                EXPECT_NEAR(probabilities[h][i * n + j], expected, 1e-6)
                    << "head " << h << ", row " << i << ", key " << j;
                if (visible) {
                    EXPECT_NEAR(scores[h][i * n + j], s[j], 1e-6);
                }
                row += probabilities[h][i * n + j];
            }
            EXPECT_NEAR(1.0 - row, std::exp(double(sinkLogits[h])) / sum, 1e-6)
                << "the row falls short of one by the sink's share";
        }
}

}  // namespace
}  // namespace qkv
