// Level of detail: where cells fit, every sample is one cell; where they do not, each of the
// pixels' samples covers the cells under it, keeps the largest (or, for signed data, the value
// farthest from zero) and skips masked cells.
#include "ui/plot/cell_sampling.h"

#include <gtest/gtest.h>

#include <cmath>

namespace qkv::ui {
namespace {

TEST(CellSampling, CellsThatFitAreSampledOneByOne) {
    const AxisSampling axis = sampleAxis(9.7, 20.2, 100, 400);  // cells 10..20 show
    ASSERT_TRUE(axis.cellLevel);
    ASSERT_EQ(axis.size(), 11);
    EXPECT_EQ(axis.first.front(), 10);
    EXPECT_EQ(axis.last.back(), 20);
    EXPECT_DOUBLE_EQ(axis.lower, 10.0);
    EXPECT_DOUBLE_EQ(axis.upper(), 20.0);
    EXPECT_EQ(axis.sampleOf(15), 5);
    EXPECT_EQ(axis.sampleOf(21), -1);
}

TEST(CellSampling, ManyCellsGetOneSamplePerPixelCoveringThemAll) {
    const AxisSampling axis = sampleAxis(-0.5, 4095.5, 4096, 500);
    ASSERT_FALSE(axis.cellLevel);
    ASSERT_EQ(axis.size(), 500);
    EXPECT_EQ(axis.first.front(), 0);
    EXPECT_EQ(axis.last.back(), 4095);
    for (int s = 1; s < axis.size(); ++s) {
        EXPECT_LE(axis.first[s], axis.last[s - 1] + 1) << "no cell between samples " << s;
        EXPECT_GE(axis.first[s], axis.last[s - 1]) << "at most one cell shared, sample " << s;
    }
    EXPECT_NEAR(axis.step, 4096.0 / 500, 1e-12);
    EXPECT_NEAR(axis.upper() + axis.step / 2, 4095.5, 1e-9);
}

TEST(CellSampling, ASinglePeakSurvivesAndMaskedCellsAreSkipped) {
    constexpr int n = 1000;
    const AxisSampling axis = sampleAxis(-0.5, n - 0.5, n, 10);  // 100 cells per sample
    auto at = [](int r, int c) {
        if (c > r) return std::nan("");           // causal mask
        return r == 512 && c == 7 ? 0.9 : 0.001;  // one sharp peak
    };
    const std::vector<double> samples = sampleCells(axis, axis, Reduction::Largest, at);
    ASSERT_EQ(samples.size(), 100u);
    EXPECT_DOUBLE_EQ(samples[5 * 10 + 0], 0.9) << "the peak's sample";
    EXPECT_DOUBLE_EQ(samples[6 * 10 + 0], 0.001);
    EXPECT_DOUBLE_EQ(samples[3 * 10 + 3], 0.001) << "a diagonal sample, half masked";
    EXPECT_TRUE(std::isnan(samples[0 * 10 + 9])) << "entirely masked";
}

TEST(CellSampling, SignedDataKeepsTheValueFarthestFromZero) {
    const AxisSampling axis = sampleAxis(-0.5, 99.5, 100, 1);
    const std::vector<double> samples =
        sampleCells(axis, axis, Reduction::LargestMagnitude,
                    [](int r, int c) { return r == 40 && c == 2 ? -7.5 : (r == 3 ? 2.0 : 0.0); });
    ASSERT_EQ(samples.size(), 1u);
    EXPECT_DOUBLE_EQ(samples[0], -7.5);
}

}  // namespace
}  // namespace qkv::ui
