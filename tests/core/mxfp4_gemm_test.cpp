// The product of few rows with an MXFP4 weight, its blocks decoded in registers
// (mxfp4SmallGemm, which compactGemm takes for up to kMxfp4SmallGemmRows rows), against the same
// product in double on the weight decoded element by element (mxfp4At): every row count of a
// token tile and past it, odd column counts, beta 0 and 1, scales at both ends of E8M0's range.
#include "core/backend/mxfp4_gemm.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "core/backend/compact_gemm.h"

namespace qkv {
namespace {

// A k x n MXFP4 weight whose columns are each k contiguous elements (a Linear weight [n, k] seen
// transposed, as the experts' are), random codes under random scales in [lowScale, highScale].
struct Mxfp4Weight {
    std::vector<std::uint8_t> blocks, scales;
    MatrixView view;
};
Mxfp4Weight randomWeight(int k, int n, int lowScale, int highScale, unsigned seed) {
    std::mt19937 engine(seed);
    Mxfp4Weight w;
    w.blocks.resize(static_cast<std::size_t>(k) * n / 2);
    w.scales.resize(static_cast<std::size_t>(k) * n / kMxfp4BlockElements);
    std::uniform_int_distribution<int> byte(0, 255), scale(lowScale, highScale);
    for (auto& b : w.blocks) b = static_cast<std::uint8_t>(byte(engine));
    for (auto& s : w.scales) s = static_cast<std::uint8_t>(scale(engine));
    w.view = {w.blocks.data(), k, n, 1, k, ElementType::Mxfp4, w.scales.data()};
    return w;
}

std::vector<float> randomValues(std::size_t count, unsigned seed) {
    std::mt19937 engine(seed);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    std::vector<float> v(count);
    for (float& x : v) x = normal(engine);
    return v;
}

// C = A·B + beta·C through compactGemm, checked element by element against double.
void expectProduct(int m, int k, int n, float beta, int lowScale, int highScale, unsigned seed) {
    SCOPED_TRACE(testing::Message() << "m " << m << " k " << k << " n " << n << " beta " << beta);
    const Mxfp4Weight w = randomWeight(k, n, lowScale, highScale, seed);
    const int lda = k + 3, ldc = n + 5;  // strides wider than the rows
    const std::vector<float> a = randomValues(static_cast<std::size_t>(m) * lda, seed + 1);
    std::vector<float> c = randomValues(static_cast<std::size_t>(m) * ldc, seed + 2);
    const std::vector<float> before = c;
    ThreadPool pool(2);
    compactGemm(pool, a.data(), lda, m, w.view, beta, c.data(), ldc);
    for (int r = 0; r < m; ++r)
        for (int j = 0; j < n; ++j) {
            double exact = beta * before[static_cast<std::size_t>(r) * ldc + j], magnitude = 0;
            for (int i = 0; i < k; ++i) {
                const double term =
                    static_cast<double>(a[static_cast<std::size_t>(r) * lda + i]) * w.view.at(i, j);
                exact += term;
                magnitude += std::abs(term);
            }
            // A float32 sum of k products is within about k · 2^-24 of their magnitude, in any
            // order: 1e-5 of it covers k <= 160.
            EXPECT_NEAR(c[static_cast<std::size_t>(r) * ldc + j], exact, 1e-5 * magnitude + 1e-30)
                << "row " << r << " column " << j;
        }
}

TEST(Mxfp4SmallGemm, TakesFewRowsOfWholeBlockColumns) {
#if defined(__AVX512F__)
    const Mxfp4Weight w = randomWeight(64, 5, 120, 130, 1);
    EXPECT_TRUE(mxfp4SmallGemmApplies(1, w.view));
    EXPECT_TRUE(mxfp4SmallGemmApplies(kMxfp4SmallGemmRows, w.view));
    EXPECT_FALSE(mxfp4SmallGemmApplies(kMxfp4SmallGemmRows + 1, w.view));
    EXPECT_FALSE(mxfp4SmallGemmApplies(8, w.view.transposed()));  // rows not contiguous
#else
    GTEST_SKIP() << "the registers' decoding needs AVX-512; compactGemm widens panels instead";
#endif
}

TEST(Mxfp4SmallGemm, EqualsTheProductInDoubleForEveryRowCount) {
    for (int m : {1, 2, 3, 5, 7, 8, 9, 15, 16, 17, 31, 32, 33})
        expectProduct(m, 96, 37, 0.0f, 118, 132, 10 + m);
}

TEST(Mxfp4SmallGemm, AddsToTheOutputWithBetaOne) {
    for (int n : {1, 2, 64, 65}) expectProduct(8, 64, n, 1.0f, 118, 132, 50 + n);
}

// E8M0's ends: 2^-127 (scale 0, float32's subnormal) and 2^127 (254), whose largest codes
// overflow float32 exactly as decoding does.
TEST(Mxfp4SmallGemm, ScalesAtBothEndsOfTheRange) {
    expectProduct(4, 32, 9, 0.0f, 0, 2, 70);
    const Mxfp4Weight w = randomWeight(32, 3, 254, 254, 71);
    const std::vector<float> a(32, 1.0f);
    std::vector<float> c(3, 0.0f);
    ThreadPool pool(1);
    compactGemm(pool, a.data(), 32, 1, w.view, 0.0f, c.data(), 3);
    for (int j = 0; j < 3; ++j) {
        double exact = 0;
        for (int i = 0; i < 32; ++i) exact += w.view.at(i, j);
        if (std::isfinite(exact))
            EXPECT_NEAR(c[j], exact, 1e-5 * std::abs(exact)) << "column " << j;
        else
            EXPECT_FALSE(std::isfinite(c[j])) << "column " << j;
    }
}

}  // namespace
}  // namespace qkv
