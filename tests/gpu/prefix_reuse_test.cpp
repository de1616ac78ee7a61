// Prefix reuse on the Vulkan backend: rotary positions from an offset, rows copied into place and
// attention with a query offset give the whole forward's result on every shared causal model.
#include <gtest/gtest.h>

#include "tests/gpu/gpu_test_support.h"
#include "tests/support/prefix_reuse_check.h"
#include "tests/support/shared_assets.h"
#include "tests/support/shared_models.h"

namespace qkv {
namespace {

// As on the CPU (tests/core/prefix_reuse_test.cpp): the kept rows are the earlier forward's; the
// new rows' sums may round differently, relative to each matrix's largest value.
constexpr double kTolerance = 5e-5;

// The models whose attention calls differ under a query offset (the whole matrix of a score
// transform, Reformer's options): learned positions (OPT), grouped queries with rotary positions, a
// soft-capped window, sinks, chunks and latent attention. The other models run the learned
// configuration and the app's one-head request: a transform or Reformer's options change the
// same attention call whichever family makes it, and these six layouts check that call.
bool checksEveryConfiguration(const std::string& name) {
    return name == "opt-random-tiny" || name == "llama-random-gqa" ||
           name == "gemma2-random-tiny" || name == "gpt_oss-random-tiny" ||
           name == "llama4-random-tiny" || name == "deepseek_v3-random-tiny";
}

// Copies of another shared model's layout in another storage: FP8 blocks are decoded before any
// op, so reuse sees their siblings' calls (qwen3-, deepseek_v3-random-tiny), at several times the
// cost on lavapipe.
bool storesASiblingsLayout(const std::string& name) {
    return name == "qwen3fp8-random-tiny" || name == "deepseek_v3fp8-random-tiny";
}

class VulkanPrefixReuse : public testing::TestWithParam<std::string> {};

TEST_P(VulkanPrefixReuse, EqualsTheWholeForward) {
    QKV_REQUIRE_SHARED(shared);
    std::string why;
    Backend* gpu = test::sharedVulkanBackend(&why);
    if (!gpu) GTEST_SKIP() << why;
    const std::string& name = GetParam();
    if (storesASiblingsLayout(name)) GTEST_SKIP() << "the same ops as its sibling layout";
    auto model = Model::open(shared / "models" / name);
    const Architecture& c = model->architecture();
    ForwardPass pass(*model, *gpu);
    // Linear layers keep no prefix: every forward computes whole.
    if (!pass.canKeepPrefix(ForwardRequest{}))
        GTEST_SKIP() << "this model keeps no prefix: every forward computes whole";
    const auto edits = test::prefixEdits(std::min(c.contextLength, 20), c.vocabSize, 5);
    // The plain attention, a score transform (the whole matrix) and Reformer's options.
    for (const char* configuration : {"learned", "sym-scores", "shared-qk-reformer"}) {
        if (configuration != std::string("learned") && !checksEveryConfiguration(name)) continue;
        SCOPED_TRACE(configuration);
        ForwardRequest request;
        request.config = WConfiguration::parse(configuration);
        request.logits = LogitsMode::AllPositions;
        test::checkPrefixReuse(pass, request, edits, kTolerance);
    }
    // The app's request at long inputs: one head, q, k and v of its layer only (reuse takes the
    // others from the GPU's memory).
    ForwardRequest oneHead;
    oneHead.capture.layer = c.layers - 1;
    oneHead.capture.head = 0;
    oneHead.capture.allVectors = false;
    test::checkPrefixReuse(pass, oneHead, edits, kTolerance);
}

// One case per model: ctest spreads them over its jobs.
INSTANTIATE_TEST_SUITE_P(SharedModels, VulkanPrefixReuse,
                         testing::ValuesIn(test::sharedModelCases()), test::sharedModelCaseName);

}  // namespace
}  // namespace qkv
