// The Vulkan backend's behaviour beyond matching the CPU op by op (that is ops_test.cpp's table):
// weight storage and caching, errors, work queued until the host waits, staging, lifetimes.
#include <gtest/gtest.h>

#include <string>

#include "core/util/half.h"
#include "tests/gpu/backend_op_cases.h"
#include "tests/gpu/gpu_test_support.h"

namespace qkv {
namespace {

using test::download;
using test::randomValues;
using test::WeightLayout;

// A Linear [out, in] weight larger than one shader can address is split by columns (the
// LinearSplitWeight cases of the op table); a row-major weight keeps its columns apart in memory,
// so on a backend capped at 128 KiB a 96 x 1000 one (375 KiB) is a clear error.
TEST(VulkanBehaviour, RowMajorWeightsBeyondTheAddressableRangeAreAnError) {
    QKV_REQUIRE_VULKAN(shared);
    VulkanOptions options;
    options.maxBufferRange = 128 << 10;
    const auto gpu = createVulkanBackend(options);
    const int k = 96, n = 1000;
    const auto w = randomValues(static_cast<size_t>(k) * n, 91);
    try {
        gpu->weight(MatrixView::rowMajor(w.data(), k, n));
        FAIL() << "expected qkv::Error";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("one shader can address"), std::string::npos)
            << e.what();
    }
}

TEST(VulkanBehaviour, WeightsDownloadInTheirLogicalLayout) {
    QKV_REQUIRE_VULKAN(gpu);
    const auto w = randomValues(13 * 7 * 3, 7);
    for (WeightLayout layout : {WeightLayout::RowMajor, WeightLayout::ColMajor,
                                WeightLayout::RowMajorBlock, WeightLayout::ColMajorBlock}) {
        SCOPED_TRACE(test::layoutName(layout));
        const MatrixView view = test::weightView(layout, w, 13, 7);
        auto t = gpu.weight(view);
        const auto values = download(gpu, *t);
        for (int r = 0; r < 13; ++r)
            for (int c = 0; c < 7; ++c) ASSERT_EQ(values[r * 7 + c], view.at(r, c));
    }
}

TEST(VulkanBehaviour, SameWeightMemoryIsUploadedOnce) {
    QKV_REQUIRE_VULKAN(gpu);
    const auto w = randomValues(64 * 32, 8);
    const MatrixView view = MatrixView::colMajor(w.data(), 64, 32);
    const auto before = vulkanCounters(gpu)->uploadedBytes;
    auto first = gpu.weight(view);
    const auto once = vulkanCounters(gpu)->uploadedBytes;
    auto second = gpu.weight(view);
    EXPECT_EQ(once - before, 64u * 32u * sizeof(float));
    EXPECT_EQ(vulkanCounters(gpu)->uploadedBytes, once);
    EXPECT_EQ(download(gpu, *first), download(gpu, *second));
    // Another layout of the same memory is another tensor.
    auto transposed = gpu.weight(view.transposed());
    EXPECT_EQ(vulkanCounters(gpu)->uploadedBytes, once + 64u * 32u * sizeof(float));
}

// An F16/BF16 weight goes to the device as stored: half the bytes of float32, and it downloads
// as its exact float32 widening.
TEST(VulkanBehaviour, CompactWeightsStayCompactOnTheDevice) {
    QKV_REQUIRE_VULKAN(gpu);
    const auto w = randomValues(64 * 33, 9);
    for (ElementType type : {ElementType::F16, ElementType::BF16}) {
        SCOPED_TRACE(elementTypeName(type));
        std::vector<std::uint16_t> stored(w.size());
        for (size_t i = 0; i < w.size(); ++i)
            stored[i] = type == ElementType::F16 ? floatToF16(w[i]) : floatToBf16(w[i]);
        MatrixView view = MatrixView::colMajor(nullptr, 64, 33);
        view.data = stored.data();
        view.type = type;
        const auto before = vulkanCounters(gpu)->uploadedBytes;
        auto t = gpu.weight(view);
        EXPECT_EQ(vulkanCounters(gpu)->uploadedBytes - before, 64u * 33u * 2u);
        const auto values = download(gpu, *t);
        for (int r = 0; r < 64; ++r)
            for (int c = 0; c < 33; ++c) ASSERT_EQ(values[r * 33 + c], view.at(r, c));
    }
}

TEST(VulkanBehaviour, GatedActivationsAreNotInPlaceOnesAndViceVersa) {
    QKV_REQUIRE_VULKAN(gpu);
    EXPECT_THROW(gpu.activate(*gpu.create(1, 1), Activation::SwiGlu), Error);
    EXPECT_THROW(gpu.activate(*gpu.create(1, 1), Activation::GeluTanhGlu), Error);
    EXPECT_THROW(gpu.glu(*gpu.create(1, 1), *gpu.create(1, 1), Activation::Relu), Error);
}

// Partial rotary (GPT-NeoX): dimensions past the rotated ones are copied unchanged, bit for bit,
// on both backends (the op table compares the backends with each other).
TEST(VulkanBehaviour, RopeCopiesTheDimensionsPastTheRotatedOnes) {
    QKV_REQUIRE_VULKAN(gpu);
    for (const test::RopeShape& s : test::ropeShapes()) {
        SCOPED_TRACE(testing::Message() << s.rows << " rows, d " << s.headDim << ", rotary "
                                        << s.rotaryDims << ", theta " << s.theta);
        const int cols = s.headDim * s.heads;
        const auto x = test::ropeInput(s);
        for (Backend* be : {&test::sharedCpuBackend(), &gpu}) {
            SCOPED_TRACE(be->name());
            const auto y = test::runRope(*be, s);
            for (int r = 0; r < s.rows; ++r)
                for (int col = 0; col < cols; ++col) {
                    if (col % s.headDim >= s.rotaryDims) {
                        ASSERT_EQ(y[r * cols + col], x[r * cols + col]);
                    }
                }
        }
    }
}

TEST(VulkanBehaviour, WorkIsQueuedUntilTheHostNeedsIt) {
    QKV_REQUIRE_VULKAN(gpu);
    const auto x = randomValues(16 * 32, 71);
    const auto w = randomValues(32 * 32, 72);
    auto xt = gpu.upload(x.data(), 16, 32);
    auto wt = gpu.weight(MatrixView::rowMajor(w.data(), 32, 32));
    gpu.synchronize();
    const VulkanCounters before = *vulkanCounters(gpu);
    std::vector<float> captured(16 * 16 * 4);
    for (int layer = 0; layer < 4; ++layer) {
        auto y = gpu.create(16, 32);
        gpu.linear(*xt, *wt, nullptr, *y);
        gpu.activate(*y, Activation::GeluTanh);
        gpu.add(*xt, *y);
        AttentionCapture capture{{captured.data() + layer * 256}, {}};
        auto out = gpu.create(16, 32);
        gpu.attention(*xt, *xt, *xt, {4, 8, 1, 1, 1}, {}, *out, &capture);
    }
    EXPECT_EQ(vulkanCounters(gpu)->submissions, before.submissions);
    gpu.synchronize();
    const VulkanCounters after = *vulkanCounters(gpu);
    EXPECT_EQ(after.submissions, before.submissions + 1);
    EXPECT_EQ(after.dispatches - before.dispatches, 4u * 6u);
    EXPECT_NE(captured[3 * 256 + 17], 0.0f);  // delivered at synchronize()
}

TEST(VulkanBehaviour, StagingGrowsToServeABatchInOneSubmission) {
    QKV_REQUIRE_VULKAN(unused);
    auto gpu = createVulkanBackend();  // fresh, small staging buffers
    // 4 heads x 300^2 probabilities: more than the initial staging, captured in one batch.
    const int n = 300;
    const auto x = randomValues(static_cast<size_t>(n) * 32, 75);
    std::vector<std::vector<float>> captured(4, std::vector<float>(n * n));
    AttentionCapture capture{
        {}, {captured[0].data(), captured[1].data(), captured[2].data(), captured[3].data()}};
    auto t = gpu->upload(x.data(), n, 32);
    auto out = gpu->create(n, 32);
    gpu->synchronize();
    for (int round = 0; round < 2; ++round) {
        const auto before = vulkanCounters(*gpu)->submissions;
        gpu->attention(*t, *t, *t, {4, 8, 1, 1, 1}, {}, *out, &capture);
        gpu->synchronize();
        if (round == 1) {
            EXPECT_EQ(vulkanCounters(*gpu)->submissions, before + 1);
        }
    }
}

TEST(VulkanBehaviour, TransfersLargerThanTheStagingBufferArriveWhole) {
    QKV_REQUIRE_VULKAN(gpu);
    // 72 MiB: more than one staging buffer's worth in each direction.
    const int rows = 4608, cols = 4096;
    std::vector<float> x(static_cast<size_t>(rows) * cols);
    for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i % 1000003);
    auto t = gpu.upload(x.data(), rows, cols);
    const auto back = download(gpu, *t);
    EXPECT_TRUE(back == x);
}

TEST(VulkanBehaviour, OutOfMemoryIsAnErrorWithSizes) {
    QKV_REQUIRE_VULKAN(gpu);
    try {
        gpu.create(1 << 20, 1 << 18);  // 1 TiB
        FAIL() << "expected qkv::Error";
    } catch (const Error& e) {
        const std::string message = e.what();
        EXPECT_NE(message.find("MiB"), std::string::npos) << message;
    }
    // The backend is still usable afterwards.
    const auto x = randomValues(4, 81);
    auto t = gpu.upload(x.data(), 2, 2);
    EXPECT_EQ(download(gpu, *t), x);
}

TEST(VulkanBehaviour, ShapeMismatchesAreErrors) {
    QKV_REQUIRE_VULKAN(gpu);
    auto x = gpu.create(3, 4);
    auto w = gpu.create(5, 6);
    auto y = gpu.create(3, 6);
    EXPECT_THROW(gpu.linear(*x, *w, nullptr, *y), Error);
    EXPECT_THROW(gpu.add(*x, *y), Error);
    const RotaryFrequencies threeDims{{1.0f, 0.5f}, 1.0f};   // 4 rotated dims
    EXPECT_THROW(gpu.rope(*x, 3, threeDims, 0, *x), Error);  // more than the head's 3
    const RotaryFrequencies sixDims{{1.0f, 0.5f, 0.25f}, 1.0f};
    EXPECT_THROW(gpu.rope(*x, 4, sixDims, 0, *x), Error);
    auto out = gpu.create(3, 8);
    EXPECT_THROW(gpu.attention(*x, *x, *x, {2, 4, 1, 1, 1}, {}, *out, nullptr), Error);
}

TEST(VulkanBehaviour, TensorsMayOutliveTheBackend) {
    QKV_REQUIRE_VULKAN(unused);
    auto backend = createVulkanBackend();
    const auto x = randomValues(6, 91);
    auto t = backend->upload(x.data(), 2, 3);
    EXPECT_EQ(download(*backend, *t), x);
    backend.reset();
    t.reset();
}

}  // namespace
}  // namespace qkv
