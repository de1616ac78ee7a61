// Two checkpoints of one model compared head by head: a file against itself changes nothing, a
// 4-bit quantisation against the float32 file changes every head a little (and by the same
// numbers as two separate forwards say), and checkpoints of different models are refused.
#include "core/analysis/model_comparison.h"

#include <gtest/gtest.h>

#include "core/model/forward.h"
#include "core/util/error.h"
#include "tests/support/shared_assets.h"

namespace qkv {
namespace {

const std::vector<int> kIds = {1, 5, 900, 33, 17, 263, 40, 777};

TEST(ModelComparison, QuantisationChangesEveryHeadByWhatTheForwardsSay) {
    QKV_REQUIRE_SHARED_GGUF(shared);
    const auto folder = shared / "gguf" / "llama-gguf-tiny";
    const auto f32 = Model::open(folder / "llama-gguf-tiny-F32.gguf");
    const auto q4 = Model::open(folder / "llama-gguf-tiny-Q4_K_M.gguf");
    auto cpu = createCpuBackend();
    const ModelComparison same = compareModels(*f32, *f32, kIds, *cpu, *cpu);
    EXPECT_EQ(same.largestAttentionChange(), 0.0);
    for (const auto& layer : same.layers)
        for (const HeadChange& h : layer) EXPECT_EQ(h.symmetryA, h.symmetryB);

    const ModelComparison changed = compareModels(*q4, *f32, kIds, *cpu, *cpu);
    ASSERT_EQ(changed.layers.size(), 2u);
    ForwardRequest request;
    request.ids = kIds;
    const ForwardResult a = ForwardPass(*q4, *cpu).run(request);
    const ForwardResult b = ForwardPass(*f32, *cpu).run(request);
    for (int l = 0; l < 2; ++l)
        for (int h = 0; h < 4; ++h) {
            const HeadChange& c = changed.layers[l][h];
            EXPECT_GT(c.attentionChange, 0.0) << l << " " << h;
            EXPECT_LE(c.attentionChange, 1.0);
            EXPECT_NE(c.symmetryA, c.symmetryB);
            double largest = 0;  // the definition, row by row
            for (int i = 0; i < static_cast<int>(kIds.size()); ++i) {
                double tv = 0;
                for (int j = 0; j < static_cast<int>(kIds.size()); ++j)
                    tv += std::abs(double(a.trace.probabilities(l, h)(i, j)) -
                                   double(b.trace.probabilities(l, h)(i, j)));
                largest = std::max(largest, tv / 2);
            }
            EXPECT_NEAR(c.attentionChange, largest, 1e-12);
        }
}

TEST(ModelComparison, CheckpointsOfDifferentModelsAreRefused) {
    QKV_REQUIRE_SHARED_GGUF(shared);
    const auto llama =
        Model::open(shared / "gguf" / "llama-gguf-tiny" / "llama-gguf-tiny-F32.gguf");
    const auto qwen = Model::open(shared / "gguf" / "qwen2-gguf-tiny" / "qwen2-gguf-tiny-F32.gguf");
    try {
        requireComparable(*llama, *qwen);
        ADD_FAILURE() << "compared";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("architecture llama against qwen2"), std::string::npos)
            << e.what();
    }
    const auto other = Model::open(shared / "models" / "llama-random-gqa");
    EXPECT_THROW(requireComparable(*llama, *other), Error);
}

}  // namespace
}  // namespace qkv
