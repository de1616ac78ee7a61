// Every Backend op on Vulkan against the CPU backend: one parameterised test over the op table
// (backend_op_cases.h), on random inputs with fixed seeds: odd sizes (1 row, sizes not multiples
// of the 64 x 64 GEMM tile or of 4), every weight layout and strided column blocks, GQA layouts,
// every masking and scaling option, capture on and off. The backend's other behaviour (queueing,
// staging, errors, lifetimes) is in vulkan_behaviour_test.cpp.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <string>

#include "tests/gpu/backend_op_cases.h"
#include "tests/gpu/gpu_test_support.h"

namespace qkv {
namespace {

class VulkanOps : public testing::TestWithParam<test::OpCase> {};

TEST_P(VulkanOps, MatchesCpu) {
    const test::OpCase& c = GetParam();
    QKV_REQUIRE_VULKAN(shared);
    std::unique_ptr<Backend> capped;  // a fresh backend for cases that cap the shader range
    if (c.maxBufferRange > 0) {
        VulkanOptions options;
        options.maxBufferRange = c.maxBufferRange;
        capped = createVulkanBackend(options);
    }
    Backend& gpu = capped ? *capped : shared;

    const std::vector<float> expected = c.run(test::sharedCpuBackend());
    const std::vector<float> actual = c.run(gpu);
    ASSERT_EQ(actual.size(), expected.size()) << c.description;
    const test::NormalisedError measured =
        test::normalisedError(actual, expected, c.tolerance.normalisation);
    RecordProperty("normalised_error", testing::PrintToString(measured.error));
    EXPECT_LE(measured.error, c.tolerance.limit)
        << c.name << ": " << c.description << "\nnormalised error " << measured.error << " ("
        << test::describe(c.tolerance) << "), worst at element " << measured.worst << ": vulkan "
        << (actual.empty() ? NAN : actual[measured.worst]) << ", cpu "
        << (expected.empty() ? NAN : expected[measured.worst]);
}

INSTANTIATE_TEST_SUITE_P(Table, VulkanOps, testing::ValuesIn(test::backendOpCases()),
                         [](const testing::TestParamInfo<test::OpCase>& info) {
                             return info.param.name;
                         });

}  // namespace
}  // namespace qkv
