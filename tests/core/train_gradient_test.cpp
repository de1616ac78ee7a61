// The whole training network's backward pass against central finite differences in double
// precision, under every attention tying: embeddings, every layer's LayerNorms, attention
// sources (a tied source sums two slots' gradients), projections, MLP, final LayerNorm and the
// tied output head.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "core/train/gpt2_network.h"
#include "core/train/parameters.h"
#include "core/train/random.h"
#include "tests/support/tyings.h"

namespace qkv::train {
namespace {

class TrainGradient : public ::testing::TestWithParam<const char*> {};

TEST_P(TrainGradient, BackwardMatchesFiniteDifferences) {
    ModelShape shape{.layers = 2,
                     .heads = 2,
                     .dModel = 8,
                     .context = 6,
                     .vocab = 11,
                     .tying = AttentionTying::parse(GetParam())};
    ThreadPool pool(2);
    Gpt2Network<double> network(shape, pool);
    const ParameterLayout& layout = network.layout();

    // Larger-than-GPT-2 weights, so every path carries a gradient well above rounding.
    Random random(7);
    std::vector<double> params(layout.size(), 0.0);
    for (const ParameterTensor& t : layout.tensors())
        for (size_t i = 0; i < t.size(); ++i)
            params[t.offset + i] =
                (t.name.find("ln_") != std::string::npos && t.name.ends_with("weight") ? 1.0
                                                                                       : 0.0) +
                0.3 * random.normal();
    const int sequences = 2, length = 5;
    std::vector<int> inputs(sequences * length), targets(sequences * length);
    for (int i = 0; i < sequences * length; ++i) {
        inputs[i] = random.below(shape.vocab);
        targets[i] = random.below(shape.vocab);
    }
    auto loss = [&] {
        return network.forward(params.data(), inputs.data(), targets.data(), sequences, length);
    };
    loss();
    std::vector<double> grads(layout.size(), 0.0);
    network.backward(params.data(), grads.data());

    constexpr double h = 1e-5;
    for (const ParameterTensor& t : layout.tensors()) {
        double worst = 0;
        // Up to 12 elements per tensor, spread over it.
        const size_t stride = std::max<size_t>(1, t.size() / 12);
        for (size_t i = 0; i < t.size(); i += stride) {
            double& p = params[t.offset + i];
            const double saved = p;
            p = saved + h;
            const double up = loss();
            p = saved - h;
            const double down = loss();
            p = saved;
            const double numeric = (up - down) / (2 * h);
            const double analytic = grads[t.offset + i];
            const double error = std::abs(numeric - analytic) / std::max(1e-3, std::abs(numeric));
            worst = std::max(worst, error);
            EXPECT_LT(error, 1e-6)
                << t.name << "[" << i << "]: analytic " << analytic << ", numeric " << numeric;
        }
    }
}

INSTANTIATE_TEST_SUITE_P(Tyings, TrainGradient, test::allTyings(), test::tyingTestName);

}  // namespace
}  // namespace qkv::train
