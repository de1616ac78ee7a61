// The product of few rows with a compact weight (MXFP4, Q8_0, BF16), its blocks decoded in
// registers (fewRowsGemm, which compactGemm takes for up to kFewRowsGemmRows rows), against the
// weight decoded element by element (MatrixView::at): bit for bit where the product is the element
// itself, else against the product in double, for every row count of a token tile and past it,
// odd column counts, beta 0 and 1 and scales at both ends of each format's range.
#include "core/backend/few_rows_gemm.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "core/backend/compact_gemm.h"
#include "core/util/half.h"

namespace qkv {
namespace {

// A k x n weight whose columns are each k contiguous elements (a Linear weight [n, k] seen
// transposed, as the experts' are), random codes under random scales.
struct BlockWeight {
    std::vector<std::uint8_t> bytes, scales;
    MatrixView view;
};

// MXFP4 as the Hub stores it, scale bytes in [lowScale, highScale].
BlockWeight randomMxfp4(int k, int n, int lowScale, int highScale, unsigned seed) {
    std::mt19937 engine(seed);
    BlockWeight w;
    w.bytes.resize(static_cast<std::size_t>(k) * n / 2);
    w.scales.resize(static_cast<std::size_t>(k) * n / kMxfp4BlockElements);
    std::uniform_int_distribution<int> byte(0, 255), scale(lowScale, highScale);
    for (auto& b : w.bytes) b = static_cast<std::uint8_t>(byte(engine));
    for (auto& s : w.scales) s = static_cast<std::uint8_t>(scale(engine));
    w.view = {w.bytes.data(), k, n, 1, k, ElementType::Mxfp4, w.scales.data()};
    return w;
}

// GGUF's Q8_0 (an f16 scale, then 32 int8 codes), the scales' f16 bits in [lowBits, highBits].
BlockWeight randomQ8_0(int k, int n, std::uint16_t lowBits, std::uint16_t highBits, unsigned seed) {
    std::mt19937 engine(seed);
    BlockWeight w;
    w.bytes.resize(static_cast<std::size_t>(k) * n / 32 * 34);
    std::uniform_int_distribution<int> byte(0, 255), bits(lowBits, highBits), sign(0, 1);
    for (std::size_t block = 0; block < w.bytes.size(); block += 34) {
        const auto scale = static_cast<std::uint16_t>(bits(engine) | sign(engine) << 15);
        std::memcpy(&w.bytes[block], &scale, sizeof scale);
        for (int i = 2; i < 34; ++i) w.bytes[block + i] = static_cast<std::uint8_t>(byte(engine));
    }
    w.view = {w.bytes.data(), k, n, 1, k, ElementType::Q8_0};
    return w;
}

// BF16 (a checkpoint's Linear weight), normal values rounded to bfloat16.
BlockWeight randomBf16(int k, int n, unsigned seed) {
    std::mt19937 engine(seed);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    BlockWeight w;
    w.bytes.resize(static_cast<std::size_t>(k) * n * 2);
    for (std::size_t i = 0; i < w.bytes.size(); i += 2) {
        const std::uint16_t h = floatToBf16(normal(engine));
        std::memcpy(&w.bytes[i], &h, sizeof h);
    }
    w.view = {w.bytes.data(), k, n, 1, k, ElementType::BF16};
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
void expectProduct(const BlockWeight& w, int m, float beta, unsigned seed) {
    const int k = w.view.rows, n = w.view.cols;
    SCOPED_TRACE(testing::Message() << elementTypeName(w.view.type) << " m " << m << " k " << k
                                    << " n " << n << " beta " << beta);
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

// The identity's rows times the weight: each output is one decoded element times one, plus
// zeros, so it must equal that element as the view decodes it, bit for bit (which also checks
// where each code of a block lands). The scales must keep every element finite.
void expectElementsDecodedExactly(const BlockWeight& w) {
    const int k = w.view.rows, n = w.view.cols;
    ASSERT_LE(k, kFewRowsGemmRows);  // the rows fewRowsGemm takes (with AVX-512)
    std::vector<float> identity(static_cast<std::size_t>(k) * k, 0.0f),
        c(static_cast<std::size_t>(k) * n);
    for (int i = 0; i < k; ++i) identity[static_cast<std::size_t>(i) * k + i] = 1.0f;
    ThreadPool pool(2);
    compactGemm(pool, identity.data(), k, k, w.view, 0.0f, c.data(), n);
    for (int i = 0; i < k; ++i)
        for (int j = 0; j < n; ++j) {
            ASSERT_EQ(c[static_cast<std::size_t>(i) * n + j], w.view.at(i, j))
                << elementTypeName(w.view.type) << " element " << i << " column " << j;
        }
}

TEST(FewRowsGemm, TakesFewRowsOfWholeBlockColumns) {
#if defined(__AVX512F__)
    for (const BlockWeight& w :
         {randomMxfp4(64, 5, 120, 130, 1), randomQ8_0(64, 5, 0, 0x7BFF, 1)}) {
        SCOPED_TRACE(elementTypeName(w.view.type));
        EXPECT_TRUE(fewRowsGemmApplies(1, w.view));
        EXPECT_TRUE(fewRowsGemmApplies(kFewRowsGemmRows, w.view));
        EXPECT_FALSE(fewRowsGemmApplies(kFewRowsGemmRows + 1, w.view));
        EXPECT_FALSE(fewRowsGemmApplies(8, w.view.transposed()));  // rows not contiguous
    }
    // A Q8_0 view starting inside a block (a head's rows of an output projection), and k not
    // whole blocks.
    EXPECT_FALSE(fewRowsGemmApplies(4, randomQ8_0(64, 4, 0, 0x7BFF, 2).view.rowRange(16, 32)));
    EXPECT_FALSE(fewRowsGemmApplies(4, randomBf16(64, 4, 2).view.rowRange(0, 48)));
    EXPECT_FALSE(fewRowsGemmApplies(4, MatrixView::colMajor(nullptr, 64, 4)));  // float32: SGEMM
#else
    GTEST_SKIP() << "the registers' decoding needs AVX-512; compactGemm widens panels instead";
#endif
}

TEST(FewRowsGemm, MultipliesEachElementAsDecoded) {
    expectElementsDecodedExactly(randomMxfp4(32, 7, 100, 150, 3));
    expectElementsDecodedExactly(randomQ8_0(32, 7, 0, 0x7BFF, 3));  // every finite scale
    expectElementsDecodedExactly(randomBf16(32, 7, 3));
}

TEST(FewRowsGemm, EqualsTheProductInDoubleForEveryRowCount) {
    for (int m : {1, 2, 3, 5, 7, 8, 9, 15, 16, 17, 31, 32, 33, 40, 63, 64, 65}) {
        expectProduct(randomMxfp4(96, 37, 118, 132, 10 + m), m, 0.0f, 10 + m);
        expectProduct(randomQ8_0(96, 37, 0x2000, 0x3C00, 10 + m), m, 0.0f, 10 + m);
        expectProduct(randomBf16(96, 37, 10 + m), m, 0.0f, 10 + m);
    }
}

TEST(FewRowsGemm, AddsToTheOutputWithBetaOne) {
    for (int n : {1, 2, 64, 65}) {
        expectProduct(randomMxfp4(64, n, 118, 132, 50 + n), 8, 1.0f, 50 + n);
        expectProduct(randomQ8_0(64, n, 0x2000, 0x3C00, 50 + n), 8, 1.0f, 50 + n);
        expectProduct(randomBf16(64, n, 50 + n), 8, 1.0f, 50 + n);
    }
}

// E8M0's ends: 2^-127 (scale 0, float32's subnormal) and 2^127 (254), whose largest codes
// overflow float32 exactly as decoding does.
TEST(FewRowsGemm, Mxfp4ScalesAtBothEndsOfTheRange) {
    expectProduct(randomMxfp4(32, 9, 0, 2, 70), 4, 0.0f, 70);
    const BlockWeight w = randomMxfp4(32, 3, 254, 254, 71);
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

// f16's ends: subnormal scales (2^-24 upwards) and the largest, 65504.
TEST(FewRowsGemm, Q8_0ScalesAtBothEndsOfTheRange) {
    expectProduct(randomQ8_0(64, 9, 0x0001, 0x03FF, 72), 5, 0.0f, 72);
    expectProduct(randomQ8_0(64, 9, 0x7BF0, 0x7BFF, 73), 5, 0.0f, 73);
}

}  // namespace
}  // namespace qkv
