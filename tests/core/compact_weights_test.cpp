// Weights kept in their stored element type: widening is exact, and the CPU backend's linear on
// an F16/BF16 weight equals a float32 GEMM on the widened weight in every layout the checkpoints
// use, including panels that do not fill the last 64 columns.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "core/backend/backend.h"
#include "core/format/element_type.h"
#include "core/util/half.h"

namespace qkv {
namespace {

std::vector<float> randomValues(size_t count, unsigned seed) {
    std::mt19937 engine(seed);
    std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
    std::vector<float> v(count);
    for (float& x : v) x = uniform(engine);
    return v;
}

std::uint16_t toStored(ElementType type, float f) {
    return type == ElementType::F16 ? floatToF16(f) : floatToBf16(f);
}

TEST(ElementTypes, WideningIsExactForEveryHalfValue) {
    for (ElementType type : {ElementType::F16, ElementType::BF16}) {
        std::vector<std::uint16_t> all(65536);
        for (size_t i = 0; i < all.size(); ++i) all[i] = static_cast<std::uint16_t>(i);
        std::vector<float> widened(all.size());
        widen(type, all.data(), all.size(), widened.data());
        for (size_t i = 0; i < all.size(); ++i) {
            const float expected =
                type == ElementType::F16 ? f16ToFloat(all[i]) : bf16ToFloat(all[i]);
            const float at = elementAt(type, all.data(), static_cast<std::ptrdiff_t>(i));
            if (std::isnan(expected)) {
                ASSERT_TRUE(std::isnan(widened[i]) && std::isnan(at)) << i;
            } else {
                ASSERT_EQ(widened[i], expected) << elementTypeName(type) << " bits " << i;
                ASSERT_EQ(at, expected) << elementTypeName(type) << " bits " << i;
            }
        }
    }
}

struct Case {
    int m, k, n;
    bool columnMajor;  // a Linear [out, in] weight; else a Conv1D [in, out]
};

TEST(CompactWeights, LinearEqualsFloat32GemmOnTheWidenedWeight) {
    auto backend = createCpuBackend();
    const Case cases[] = {{1, 64, 64, true},    {1, 48, 130, false}, {7, 33, 65, true},
                          {64, 96, 200, false}, {70, 130, 67, true}, {3, 5, 1, false}};
    unsigned seed = 1;
    for (const Case& c : cases)
        for (ElementType type : {ElementType::F16, ElementType::BF16}) {
            SCOPED_TRACE(testing::Message()
                         << c.m << "x" << c.k << " * " << c.k << "x" << c.n << " "
                         << elementTypeName(type) << (c.columnMajor ? " [out, in]" : " [in, out]"));
            const auto x = randomValues(static_cast<size_t>(c.m) * c.k, seed++);
            const auto w = randomValues(static_cast<size_t>(c.k) * c.n, seed++);
            std::vector<std::uint16_t> stored(w.size());
            std::vector<float> widened(w.size());
            for (size_t i = 0; i < w.size(); ++i) {
                stored[i] = toStored(type, w[i]);
                widened[i] = elementAt(type, stored.data(), static_cast<std::ptrdiff_t>(i));
            }
            const MatrixView floatView = c.columnMajor
                                             ? MatrixView::colMajor(widened.data(), c.k, c.n)
                                             : MatrixView::rowMajor(widened.data(), c.k, c.n);
            MatrixView compactView = floatView;
            compactView.data = stored.data();
            compactView.type = type;

            auto run = [&](const MatrixView& view) {
                auto xt = backend->upload(x.data(), c.m, c.k);
                auto wt = backend->weight(view);
                auto y = backend->create(c.m, c.n);
                backend->linear(*xt, *wt, nullptr, *y);
                std::vector<float> out(static_cast<size_t>(c.m) * c.n);
                backend->download(*y, out.data());
                return out;
            };
            const auto compact = run(compactView);
            const auto full = run(floatView);
            // Both are float32 sums of the same k products; OpenBLAS may block the widened panel
            // differently from the whole matrix, so the sums may differ in the last bits:
            // 1e-6 relative to the largest output (k <= 130 terms of size <= 1).
            double largest = 0, worst = 0;
            for (size_t i = 0; i < full.size(); ++i) {
                largest = std::max(largest, std::abs(static_cast<double>(full[i])));
                worst = std::max(worst, std::abs(static_cast<double>(compact[i]) - full[i]));
            }
            EXPECT_LE(worst, 1e-6 * (1 + largest));
            // And against float64 on the widened weight: float32 rounding of k-term sums.
            for (int r = 0; r < c.m; ++r)
                for (int j = 0; j < c.n; ++j) {
                    double exact = 0;
                    for (int i = 0; i < c.k; ++i)
                        exact += static_cast<double>(x[static_cast<size_t>(r) * c.k + i]) *
                                 floatView.at(i, j);
                    ASSERT_NEAR(compact[static_cast<size_t>(r) * c.n + j], exact, 1e-5)
                        << "row " << r << ", column " << j;
                }
        }
}

}  // namespace
}  // namespace qkv
