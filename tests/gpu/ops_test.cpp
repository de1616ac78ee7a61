// Every Backend op on Vulkan against the CPU backend, on random inputs with fixed seeds: odd sizes
// (1 row, sizes not multiples of the 64 x 64 GEMM tile or of 4), both weight layouts and strided
// column blocks, GQA layouts, every masking and scaling option, capture on and off.
#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "tests/gpu/gpu_test_support.h"

namespace qkv {
namespace {

using test::download;
using test::maxAbs;
using test::maxAbsDifference;
using test::randomValues;

// GEMM results: float32 sums of k products in another order; relative to the largest output.
double gemmTolerance(const std::vector<float>& reference) {
    return 2e-6 * (1.0 + maxAbs(reference));
}

enum class WeightLayout { RowMajor, ColMajor, RowMajorBlock, ColMajorBlock, TransposedRowMajor };

const char* layoutName(WeightLayout l) {
    switch (l) {
        case WeightLayout::RowMajor:
            return "row-major [in, out]";
        case WeightLayout::ColMajor:
            return "column-major [out, in]";
        case WeightLayout::RowMajorBlock:
            return "column block of a row-major [in, 3 out]";
        case WeightLayout::ColMajorBlock:
            return "column block of a column-major [3 out, in]";
        case WeightLayout::TransposedRowMajor:
            return "transposed row-major (tied LM head)";
    }
    return "";
}

// A k x n weight view over `storage` in the given layout (storage sized for the largest).
MatrixView weightView(WeightLayout layout, const std::vector<float>& storage, int k, int n) {
    switch (layout) {
        case WeightLayout::RowMajor:
            return MatrixView::rowMajor(storage.data(), k, n);
        case WeightLayout::ColMajor:
            return MatrixView::colMajor(storage.data(), k, n);
        case WeightLayout::RowMajorBlock:
            return MatrixView::rowMajor(storage.data(), k, 3 * n).columns(n, n);
        case WeightLayout::ColMajorBlock:
            return MatrixView::colMajor(storage.data(), k, 3 * n).columns(2 * n, n);
        case WeightLayout::TransposedRowMajor:
            return MatrixView::rowMajor(storage.data(), n, k).transposed();
    }
    return {};
}

TEST(VulkanOps, LinearMatchesCpuForEveryLayoutAndShape) {
    QKV_REQUIRE_VULKAN(gpu);
    Backend& cpu = test::sharedCpuBackend();
    struct Shape {
        int m, k, n;
    };
    const Shape shapes[] = {{1, 64, 64},   {1, 48, 3}, {7, 33, 65}, {64, 64, 64},
                            {70, 130, 67}, {5, 8, 8},  {3, 5, 7},   {129, 96, 200}};
    unsigned seed = 1;
    for (const Shape& s : shapes) {
        for (WeightLayout layout :
             {WeightLayout::RowMajor, WeightLayout::ColMajor, WeightLayout::RowMajorBlock,
              WeightLayout::ColMajorBlock, WeightLayout::TransposedRowMajor}) {
            for (bool withBias : {false, true}) {
                SCOPED_TRACE(testing::Message()
                             << s.m << "x" << s.k << " * " << s.k << "x" << s.n << ", "
                             << layoutName(layout) << (withBias ? ", bias" : ""));
                const auto x = randomValues(static_cast<size_t>(s.m) * s.k, seed++);
                const auto w = randomValues(static_cast<size_t>(s.k) * s.n * 3, seed++);
                const auto b = randomValues(s.n, seed++);
                const MatrixView view = weightView(layout, w, s.k, s.n);
                const VectorView bias{b.data(), s.n};

                auto run = [&](Backend& be) {
                    auto xt = be.upload(x.data(), s.m, s.k);
                    auto wt = be.weight(view);
                    auto bt = be.vector(bias);
                    auto y = be.create(s.m, s.n);
                    be.linear(*xt, *wt, withBias ? bt.get() : nullptr, *y);
                    return download(be, *y);
                };
                const auto expected = run(cpu);
                EXPECT_LE(maxAbsDifference(run(gpu), expected), gemmTolerance(expected));
            }
        }
    }
}

// A Linear [out, in] weight larger than one shader can address is stored in column parts and
// the linear op runs one GEMM per part: checked on a backend whose range is capped at 128 KiB,
// so a 96 x 1000 weight (375 KiB) becomes parts of 320, 320, 320 and 40 columns.
TEST(VulkanOps, WeightsBeyondTheAddressableRangeAreSplitByColumns) {
    QKV_REQUIRE_VULKAN(shared);
    VulkanOptions options;
    options.maxBufferRange = 128 << 10;
    const auto gpu = createVulkanBackend(options);
    Backend& cpu = test::sharedCpuBackend();
    const int k = 96, n = 1000;
    const auto w = randomValues(static_cast<size_t>(k) * n, 91);
    const auto b = randomValues(n, 92);
    const MatrixView view = MatrixView::colMajor(w.data(), k, n);
    for (int m : {1, 20}) {  // the GEMV and the tiled GEMM path
        for (bool withBias : {false, true}) {
            SCOPED_TRACE(testing::Message() << m << " rows" << (withBias ? ", bias" : ""));
            const auto x = randomValues(static_cast<size_t>(m) * k, 93 + m);
            auto run = [&](Backend& be) {
                auto xt = be.upload(x.data(), m, k);
                auto wt = be.weight(view);
                auto bt = be.vector({b.data(), n});
                auto y = be.create(m, n);
                be.linear(*xt, *wt, withBias ? bt.get() : nullptr, *y);
                return download(be, *y);
            };
            const auto expected = run(cpu);
            EXPECT_LE(maxAbsDifference(run(*gpu), expected), gemmTolerance(expected));
        }
    }
    // A row-major weight keeps its columns apart in memory: too large is a clear error.
    try {
        gpu->weight(MatrixView::rowMajor(w.data(), k, n));
        FAIL() << "expected qkv::Error";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("one shader can address"), std::string::npos)
            << e.what();
    }
}

TEST(VulkanOps, WeightsDownloadInTheirLogicalLayout) {
    QKV_REQUIRE_VULKAN(gpu);
    const auto w = randomValues(13 * 7 * 3, 7);
    for (WeightLayout layout : {WeightLayout::RowMajor, WeightLayout::ColMajor,
                                WeightLayout::RowMajorBlock, WeightLayout::ColMajorBlock}) {
        SCOPED_TRACE(layoutName(layout));
        const MatrixView view = weightView(layout, w, 13, 7);
        auto t = gpu.weight(view);
        const auto values = download(gpu, *t);
        for (int r = 0; r < 13; ++r)
            for (int c = 0; c < 7; ++c) ASSERT_EQ(values[r * 7 + c], view.at(r, c));
    }
}

TEST(VulkanOps, SameWeightMemoryIsUploadedOnce) {
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

TEST(VulkanOps, NormsMatchCpu) {
    QKV_REQUIRE_VULKAN(gpu);
    Backend& cpu = test::sharedCpuBackend();
    unsigned seed = 100;
    for (int rows : {1, 9}) {
        for (int cols : {1, 37, 64, 300}) {
            for (float eps : {1e-5f, 1e-12f}) {
                SCOPED_TRACE(testing::Message() << rows << " x " << cols << ", eps " << eps);
                // An offset makes the mean matter; one constant row tests a zero variance.
                auto x = randomValues(static_cast<size_t>(rows) * cols, seed++, 3.0f);
                for (float& v : x) v += 0.5f;
                if (rows > 1) std::fill(x.begin(), x.begin() + cols, 0.25f);
                const auto g = randomValues(cols, seed++);
                const auto b = randomValues(cols, seed++);
                for (int kind = 0; kind < 3; ++kind) {  // LayerNorm, LayerNorm without beta, RMS
                    auto run = [&](Backend& be) {
                        auto xt = be.upload(x.data(), rows, cols);
                        auto gt = be.vector({g.data(), cols});
                        auto bt = be.vector({b.data(), cols});
                        auto y = be.create(rows, cols);
                        if (kind == 2)
                            be.rmsNorm(*xt, *gt, eps, *y);
                        else
                            be.layerNorm(*xt, *gt, kind == 0 ? bt.get() : nullptr, eps, *y);
                        return download(be, *y);
                    };
                    const auto expected = run(cpu);
                    EXPECT_LE(maxAbsDifference(run(gpu), expected), 2e-6 * (1 + maxAbs(expected)))
                        << "kind " << kind;
                }
            }
        }
    }
}

TEST(VulkanOps, ActivationsMatchCpu) {
    QKV_REQUIRE_VULKAN(gpu);
    Backend& cpu = test::sharedCpuBackend();
    // A dense sweep of [-10, 10] plus large magnitudes where a naive tanh overflows.
    std::vector<float> x;
    for (int i = -4000; i <= 4000; ++i) x.push_back(i / 400.0f);
    for (float v : {-1e4f, -88.0f, -30.0f, 30.0f, 88.0f, 1e4f, 1e-7f, -1e-7f, 0.0f}) x.push_back(v);
    const int n = static_cast<int>(x.size());
    for (Activation a : {Activation::GeluTanh, Activation::GeluExact, Activation::Relu}) {
        SCOPED_TRACE(static_cast<int>(a));
        auto run = [&](Backend& be) {
            auto t = be.upload(x.data(), 1, n);
            be.activate(*t, a);
            return download(be, *t);
        };
        const auto expected = run(cpu);
        const auto actual = run(gpu);
        for (int i = 0; i < n; ++i)
            ASSERT_NEAR(actual[i], expected[i], 1e-6 * (1 + std::abs(expected[i])))
                << "x = " << x[i];
    }
    EXPECT_THROW(gpu.activate(*gpu.create(1, 1), Activation::SwiGlu), Error);
    EXPECT_THROW(gpu.activate(*gpu.create(1, 1), Activation::GeluTanhGlu), Error);
}

TEST(VulkanOps, GatedActivationsAndAddMatchCpu) {
    QKV_REQUIRE_VULKAN(gpu);
    Backend& cpu = test::sharedCpuBackend();
    auto gate = randomValues(7 * 173, 21, 12.0f);
    gate[0] = -200.0f;  // exp(-g) overflows to infinity: silu must still be -0
    const auto up = randomValues(7 * 173, 22, 2.0f);
    for (Activation gated : {Activation::SwiGlu, Activation::GeluTanhGlu}) {
        SCOPED_TRACE(static_cast<int>(gated));
        auto run = [&](Backend& be) {
            auto g = be.upload(gate.data(), 7, 173);
            auto u = be.upload(up.data(), 7, 173);
            be.glu(*g, *u, gated);
            auto sum = be.upload(up.data(), 7, 173);
            be.add(*sum, *g);
            be.add(*sum, *sum);  // aliasing the accumulator is allowed
            return std::pair{download(be, *u), download(be, *sum)};
        };
        const auto [expectedGlu, expectedSum] = run(cpu);
        const auto [glu, sum] = run(gpu);
        // float32 exp/tanh of |gate| up to 12, times |up| up to 2: a few ulps of 24.
        EXPECT_LE(maxAbsDifference(glu, expectedGlu), 1e-5);
        EXPECT_EQ(maxAbsDifference(sum, expectedSum), 0.0);
    }
    EXPECT_THROW(gpu.glu(*gpu.create(1, 1), *gpu.create(1, 1), Activation::Relu), Error);
}

TEST(VulkanOps, RopeMatchesCpu) {
    QKV_REQUIRE_VULKAN(gpu);
    Backend& cpu = test::sharedCpuBackend();
    struct Case {
        int rows, headDim, heads;
        float theta;
        int rotaryDims;  // partial rotary (GPT-NeoX) when below headDim
    };
    for (const Case& c : {Case{1, 8, 4, 10000.0f, 8}, Case{37, 8, 3, 10000.0f, 8},
                          Case{300, 64, 2, 10000.0f, 64}, Case{45, 128, 1, 500000.0f, 128},
                          Case{29, 16, 4, 10000.0f, 4}, Case{70, 64, 3, 10000.0f, 16}}) {
        SCOPED_TRACE(testing::Message() << c.rows << " rows, d " << c.headDim << ", rotary "
                                        << c.rotaryDims << ", theta " << c.theta);
        const int cols = c.headDim * c.heads;
        const auto x = randomValues(static_cast<size_t>(c.rows) * cols, 31 + c.rows);
        auto run = [&](Backend& be) {
            auto t = be.upload(x.data(), c.rows, cols);
            auto y = be.create(c.rows, cols);
            be.rope(*t, c.headDim, c.rotaryDims, c.theta, *y);
            return download(be, *y);
        };
        const std::vector<float> expected = run(cpu);
        EXPECT_LE(maxAbsDifference(run(gpu), expected), 1e-6);
        // Dimensions past the rotated ones are copied unchanged.
        for (int r = 0; r < c.rows; ++r)
            for (int col = 0; col < cols; ++col) {
                if (col % c.headDim >= c.rotaryDims) {
                    ASSERT_EQ(expected[r * cols + col], x[r * cols + col]);
                }
            }
    }
}

TEST(VulkanOps, CopyRowsMatchesCpu) {
    QKV_REQUIRE_VULKAN(gpu);
    const auto x = randomValues(11 * 5, 41);
    auto t = gpu.upload(x.data(), 11, 5);
    auto last = gpu.create(1, 5);
    gpu.copyRows(*t, 10, 1, *last);
    auto middle = gpu.create(3, 5);
    gpu.copyRows(*t, 4, 3, *middle);
    EXPECT_EQ(download(gpu, *last), std::vector<float>(x.begin() + 50, x.end()));
    EXPECT_EQ(download(gpu, *middle), std::vector<float>(x.begin() + 20, x.begin() + 35));
}

struct AttentionCase {
    int n;
    AttentionLayout layout;
    int qHeads, kHeads, vHeads;  // heads stored in each input
};

std::string describe(const AttentionCase& c, const AttentionOptions& o) {
    return "n " + std::to_string(c.n) + ", heads " + std::to_string(c.layout.heads) + ", d_k " +
           std::to_string(c.layout.headDim) + ", groups " + std::to_string(c.layout.queryGroup) +
           "/" + std::to_string(c.layout.keyGroup) + "/" + std::to_string(c.layout.valueGroup) +
           (o.causal ? ", causal" : "") + (o.maskSelf ? ", maskSelf" : "") +
           (o.scaleOutside ? ", scaleOutside" : "") +
           (o.transform == ScoreTransform::Symmetric ? ", sym"
            : o.transform == ScoreTransform::Skew    ? ", skew"
                                                     : "") +
           (o.scale > 0 ? ", scale " + std::to_string(o.scale) : "") +
           (o.softCap > 0 ? ", softCap " + std::to_string(o.softCap) : "") +
           (o.window > 0 ? ", window " + std::to_string(o.window) : "");
}

// Runs attention on both backends and compares the output and every captured matrix.
void compareAttention(Backend& gpu, const AttentionCase& c, const AttentionOptions& options,
                      bool captureAll, unsigned seed) {
    Backend& cpu = test::sharedCpuBackend();
    SCOPED_TRACE(describe(c, options) + (captureAll ? ", capture all" : ", capture some"));
    const int dk = c.layout.headDim;
    const int heads = c.layout.heads;
    const auto q = randomValues(static_cast<size_t>(c.n) * c.qHeads * dk, seed, 2.0f);
    const auto k = randomValues(static_cast<size_t>(c.n) * c.kHeads * dk, seed + 1, 2.0f);
    const auto v = randomValues(static_cast<size_t>(c.n) * c.vHeads * dk, seed + 2);
    const size_t square = static_cast<size_t>(c.n) * c.n;

    struct Outputs {
        std::vector<float> out;
        std::vector<std::vector<float>> scores, probabilities;
    };
    auto run = [&](Backend& be) {
        Outputs o;
        o.scores.assign(heads, std::vector<float>(square, -7.0f));
        o.probabilities.assign(heads, std::vector<float>(square, -7.0f));
        AttentionCapture capture;
        for (int h = 0; h < heads; ++h) {
            const bool scores = captureAll || h % 2 == 0;
            const bool probabilities = captureAll || h % 3 == 1;
            capture.scores.push_back(scores ? o.scores[h].data() : nullptr);
            capture.probabilities.push_back(probabilities ? o.probabilities[h].data() : nullptr);
        }
        auto qt = be.upload(q.data(), c.n, c.qHeads * dk);
        auto kt = be.upload(k.data(), c.n, c.kHeads * dk);
        auto vt = be.upload(v.data(), c.n, c.vHeads * dk);
        auto out = be.create(c.n, heads * dk);
        be.attention(*qt, *kt, *vt, c.layout, options, *out, &capture);
        o.out = download(be, *out);
        return o;
    };
    const Outputs expected = run(cpu);
    const Outputs actual = run(gpu);
    EXPECT_LE(maxAbsDifference(actual.out, expected.out), 2e-6 * (1 + maxAbs(expected.out)));
    for (int h = 0; h < heads; ++h) {
        // Uncaptured buffers stay untouched (-7 on both sides).
        EXPECT_LE(maxAbsDifference(actual.scores[h], expected.scores[h]),
                  2e-6 * (1 + maxAbs(expected.scores[h])))
            << "scores of head " << h;
        EXPECT_LE(maxAbsDifference(actual.probabilities[h], expected.probabilities[h]), 1e-6)
            << "probabilities of head " << h;
    }
}

TEST(VulkanOps, AttentionMatchesCpuForLayoutsAndOptions) {
    QKV_REQUIRE_VULKAN(gpu);
    const AttentionCase cases[] = {
        {1, {4, 8, 1, 1, 1}, 4, 4, 4},    // one token
        {5, {4, 8, 1, 1, 1}, 4, 4, 4},    // d_k = 8
        {67, {2, 16, 1, 2, 2}, 2, 1, 1},  // GQA: 2 query heads share one KV head
        {13, {4, 8, 1, 1, 2}, 4, 4, 2},   // shared-qk under GQA: keys from W_Q, values grouped
        {9, {3, 5, 1, 1, 1}, 3, 3, 3},    // d_k = 5: nothing aligned to 4
        {70, {2, 64, 2, 2, 2}, 1, 1, 1},  // slots filled from KV-head projections
    };
    unsigned seed = 500;
    for (const AttentionCase& c : cases) {
        for (bool causal : {true, false})
            compareAttention(gpu, c, {causal, false, false, ScoreTransform::None}, true, seed++);
        compareAttention(gpu, c, {true, true, false, ScoreTransform::None}, false, seed++);
        compareAttention(gpu, c, {false, true, true, ScoreTransform::None}, true, seed++);
        compareAttention(gpu, c, {true, false, true, ScoreTransform::Symmetric}, true, seed++);
        compareAttention(gpu, c, {false, true, false, ScoreTransform::Skew}, false, seed++);
        // Gemma-2's attention: its own scale, soft-capped scores, a sliding window.
        compareAttention(gpu, c, {true, false, false, ScoreTransform::None, 0.2f, 5.0f, 4}, true,
                         seed++);
        compareAttention(gpu, c, {true, true, true, ScoreTransform::Symmetric, 0.0f, 2.0f, 1}, true,
                         seed++);
        compareAttention(gpu, c, {false, false, false, ScoreTransform::Skew, 0.5f, 0.0f, 3}, false,
                         seed++);
    }
}

TEST(VulkanOps, AttentionWithoutCaptureMatchesCpu) {
    QKV_REQUIRE_VULKAN(gpu);
    Backend& cpu = test::sharedCpuBackend();
    const AttentionLayout layout{4, 8, 1, 2, 2};
    const auto q = randomValues(33 * 32, 61), k = randomValues(33 * 16, 62),
               v = randomValues(33 * 16, 63);
    auto run = [&](Backend& be) {
        auto qt = be.upload(q.data(), 33, 32);
        auto kt = be.upload(k.data(), 33, 16);
        auto vt = be.upload(v.data(), 33, 16);
        auto out = be.create(33, 32);
        be.attention(*qt, *kt, *vt, layout, {}, *out, nullptr);
        return download(be, *out);
    };
    EXPECT_LE(maxAbsDifference(run(gpu), run(cpu)), 1e-5);
}

TEST(VulkanOps, WorkIsQueuedUntilTheHostNeedsIt) {
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

TEST(VulkanOps, StagingGrowsToServeABatchInOneSubmission) {
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

TEST(VulkanOps, TransfersLargerThanTheStagingBufferArriveWhole) {
    QKV_REQUIRE_VULKAN(gpu);
    // 72 MiB: more than one staging buffer's worth in each direction.
    const int rows = 4608, cols = 4096;
    std::vector<float> x(static_cast<size_t>(rows) * cols);
    for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i % 1000003);
    auto t = gpu.upload(x.data(), rows, cols);
    const auto back = download(gpu, *t);
    EXPECT_TRUE(back == x);
}

TEST(VulkanOps, OutOfMemoryIsAnErrorWithSizes) {
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

TEST(VulkanOps, ShapeMismatchesAreErrors) {
    QKV_REQUIRE_VULKAN(gpu);
    auto x = gpu.create(3, 4);
    auto w = gpu.create(5, 6);
    auto y = gpu.create(3, 6);
    EXPECT_THROW(gpu.linear(*x, *w, nullptr, *y), Error);
    EXPECT_THROW(gpu.add(*x, *y), Error);
    EXPECT_THROW(gpu.rope(*x, 3, 3, 10000.0f, *x), Error);
    EXPECT_THROW(gpu.rope(*x, 4, 6, 10000.0f, *x), Error);
    auto out = gpu.create(3, 8);
    EXPECT_THROW(gpu.attention(*x, *x, *x, {2, 4, 1, 1, 1}, {}, *out, nullptr), Error);
}

TEST(VulkanOps, TensorsMayOutliveTheBackend) {
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
