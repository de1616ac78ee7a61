// The figure builder alone, on synthetic data (no model needed): masking, the asymmetry and
// difference matrices, square cells at any size, colour ranges, and the three file formats.
#include <gtest/gtest.h>
#include <qcustomplot.h>

#include <QDir>
#include <QFile>
#include <QImage>
#include <QSvgRenderer>
#include <QTemporaryDir>
#include <cmath>

#include "core/util/error.h"
#include "ui/export/figure_export.h"
#include "ui/plot/head_figures.h"
#include "ui/plot/head_matrices.h"

namespace qkv::ui::test {
namespace {

// One layer, one head, n tokens: S(i, j) = i - 2 j, A = row-normalised lower triangle.
std::shared_ptr<const AttentionTrace> syntheticTrace(int n) {
    AttentionTrace trace(n, 1);
    LayerTrace layer;
    layer.layout.heads = 1;
    layer.layout.headDim = 2;
    layer.query = layer.key = layer.value = RowMatrixXf::Zero(n, 2);
    RowMatrixXf s(n, n), a = RowMatrixXf::Zero(n, n);
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) {
            s(i, j) = static_cast<float>(i - 2 * j);
            if (j <= i) a(i, j) = 1.0f / static_cast<float>(i + 1);
        }
    layer.scores.push_back(s);
    layer.probabilities.push_back(a);
    trace.layers().push_back(layer);
    return std::make_shared<const AttentionTrace>(std::move(trace));
}

QStringList labels(int n) {
    QStringList out;
    for (int i = 0; i < n; ++i) out << QStringLiteral("tok%1").arg(i);
    return out;
}

TEST(HeadMatrices, AttentionMasksFutureCellsAndKeepsTheRest) {
    const auto trace = syntheticTrace(4);
    const HeatmapData d =
        headHeatmap(trace, labels(4), labels(4), 0, 0, HeatmapMode::Attention, {true, false});
    EXPECT_TRUE(std::isnan(d.at(0, 1)));
    EXPECT_DOUBLE_EQ(d.at(3, 1), 0.25);
    EXPECT_FALSE(d.diverging);
    EXPECT_EQ(d.high, 1.0);
    const HeatmapData bidirectional =
        headHeatmap(trace, labels(4), labels(4), 0, 0, HeatmapMode::Attention, {false, false});
    EXPECT_DOUBLE_EQ(bidirectional.at(0, 1), 0.0);
}

TEST(HeadMatrices, ScoresAndAsymmetryAreDivergingAroundZero) {
    const auto trace = syntheticTrace(4);
    const HeatmapData s = headHeatmap(trace, labels(4), labels(4), 0, 0, HeatmapMode::Scores, {});
    EXPECT_DOUBLE_EQ(s.at(1, 3), -5.0);
    EXPECT_TRUE(s.diverging);
    EXPECT_DOUBLE_EQ(s.low, -s.high);
    const HeatmapData asym =
        headHeatmap(trace, labels(4), labels(4), 0, 0, HeatmapMode::Asymmetry, {});
    EXPECT_DOUBLE_EQ(asym.at(1, 3), (1 - 6) - (3 - 2));  // S_13 - S_31
    EXPECT_DOUBLE_EQ(asym.at(2, 2), 0.0);
    EXPECT_DOUBLE_EQ(asym.high, 9.0);  // |S_ij - S_ji| = 3 |i - j|
}

// No copy of the head: its cells are read from the trace, which the heatmap keeps alive.
TEST(HeadMatrices, ReadTheTraceInPlaceAndKeepItAlive) {
    auto trace = syntheticTrace(4);
    const std::weak_ptr<const AttentionTrace> owner = trace;
    const HeatmapData d =
        headHeatmap(trace, labels(4), labels(4), 0, 0, HeatmapMode::Asymmetry, {});
    trace.reset();
    EXPECT_FALSE(owner.expired());
    EXPECT_TRUE(d.values.empty());
    EXPECT_DOUBLE_EQ(d.at(3, 1), (3 - 2) - (1 - 6));
}

TEST(HeadMatrices, DifferenceKeepsMaskedCellsMasked) {
    const auto trace = syntheticTrace(3);
    const HeatmapData a =
        headHeatmap(trace, labels(3), labels(3), 0, 0, HeatmapMode::Attention, {});
    const HeatmapData d = differenceHeatmap(a, a);
    EXPECT_TRUE(std::isnan(d.at(0, 2)));
    EXPECT_DOUBLE_EQ(d.at(2, 0), 0.0);
    EXPECT_TRUE(d.diverging);
    EXPECT_GT(d.high, 0.0);
}

class FigureTest : public ::testing::Test {
  protected:
    void SetUp() override {
        plot.resize(900, 600);
        trace = syntheticTrace(6);
        HeadFigureInput input;
        input.trace = trace;
        input.learned = trace;
        input.labels = labels(6);
        input.layer = 0;
        input.head = 0;
        figure.show(headFigure(input));
        compare = compareFigure(input);
    }
    QCustomPlot plot;
    HeatmapFigure figure{&plot};
    std::shared_ptr<const AttentionTrace> trace;
    FigureSpec compare;
};

TEST_F(FigureTest, CellsStaySquareWhateverTheSize) {
    for (const QSize size : {QSize(900, 600), QSize(500, 900), QSize(1600, 500)}) {
        figure.fitCells(size);
        const QRect r = plot.axisRects().at(0)->rect();
        EXPECT_NEAR(r.width(), r.height(), 2) << size.width() << "x" << size.height();
    }
    figure.show(compare);
    figure.fitCells(QSize(1600, 600));
    for (QCPAxisRect* rect : plot.axisRects()) EXPECT_NEAR(rect->width(), rect->height(), 2);
}

// Panels of very different shapes (the Neurons tab: d_k columns beside single columns) fill the
// figure when square cells are off, a wide panel getting more of the row than a narrow one.
TEST_F(FigureTest, WidePanelsGetMoreOfTheRowWithoutSquareCells) {
    auto panel = [](int rows, int cols) {
        HeatmapData data;
        data.rows = rows;
        data.cols = cols;
        data.values.assign(static_cast<size_t>(rows) * cols, 0.5);
        for (int i = 0; i < rows; ++i) data.rowLabels << QString::number(i);
        for (int j = 0; j < cols; ++j) data.colLabels << QString::number(j);
        return HeatmapPanel{data, QStringLiteral("p"), 0, -1};
    };
    FigureSpec spec;
    spec.squareCells = false;
    spec.panels = {panel(12, 32), panel(12, 32), panel(12, 1), panel(12, 1), panel(12, 1)};
    for (int i = 0; i < 5; ++i) spec.panels[i].scaleGroup = i;
    figure.show(spec);
    figure.fitCells(QSize(1040, 650));
    ASSERT_EQ(plot.axisRects().size(), 5);
    EXPECT_GT(plot.axisRects().at(1)->width(), 2 * plot.axisRects().at(2)->width());
}

TEST_F(FigureTest, CellsAreDiscreteAndHitTestable) {
    EXPECT_FALSE(figure.colorMap(0)->interpolate());
    figure.fitCells(plot.size());
    plot.replot();
    const HeatmapCell cell{0, 4, 2};
    EXPECT_EQ(figure.cellAt(figure.cellCenter(cell)), cell);
    EXPECT_FLOAT_EQ(figure.shownValue(cell), 1.0f / 5.0f);
    EXPECT_FALSE(figure.cellAt(QPoint(1, 1)).has_value());
}

TEST_F(FigureTest, SingleTokenFillsItsCell) {
    HeadFigureInput input;
    input.trace = syntheticTrace(1);
    input.labels = labels(1);
    figure.show(headFigure(input));
    figure.fitCells(plot.size());
    plot.replot();
    EXPECT_EQ(figure.cellAt(figure.cellCenter({0, 0, 0})), (HeatmapCell{0, 0, 0}));
    EXPECT_DOUBLE_EQ(figure.shownValue({0, 0, 0}), 1.0);
}

TEST(RasterPixelScale, ShrinksHugeImagesToTheCapAndRefusesWhatDoesNotFitAt1x) {
    EXPECT_EQ(rasterPixelScale(QSize(1000, 820), kPngScale), kPngScale);
    EXPECT_TRUE(reducedScaleNote(kPngScale).isEmpty());

    const QSize huge(5000, 4000);  // 80 megapixels at 2x
    const double scale = rasterPixelScale(huge, kPngScale);
    EXPECT_DOUBLE_EQ(scale, 1.34);
    EXPECT_LE(huge.width() * scale * huge.height() * scale, double(kMaxRasterPixels));
    EXPECT_GT(huge.width() * (scale + 0.01) * huge.height() * (scale + 0.01),
              double(kMaxRasterPixels))
        << "the largest scale that fits, to a hundredth";
    EXPECT_EQ(reducedScaleNote(scale),
              QStringLiteral(" (drawn at 1.34× instead of 2× to stay within 36 megapixels)"));

    EXPECT_THROW(rasterPixelScale(QSize(7000, 7000), kPngScale), Error);
}

TEST_F(FigureTest, RendersEachFormat) {
    const QSize size(700, 560);
    const QByteArray png = renderFigure(figure, ImageFormat::Png, size);
    EXPECT_EQ(QImage::fromData(png, "PNG").size(), size * kPngScale);
    const QByteArray svg = renderFigure(figure, ImageFormat::Svg, size);
    QSvgRenderer renderer(svg);
    EXPECT_TRUE(renderer.isValid());
    EXPECT_TRUE(svg.contains("image-rendering:pixelated"));
    EXPECT_TRUE(renderFigure(figure, ImageFormat::Pdf, size).startsWith("%PDF-"));
    EXPECT_EQ(plot.viewport().size(), plot.size()) << "the on-screen layout is restored";
}

TEST_F(FigureTest, ExportFailuresThrowAndWriteNothing) {
    QTemporaryDir dir;
    EXPECT_THROW(exportFigure(figure, QDir(dir.path()).filePath("x.gif"), QSize(400, 400)), Error);
    EXPECT_THROW(exportFigure(figure, QDir(dir.path()).filePath("missing/x.png"), QSize(400, 400)),
                 Error);
    EXPECT_TRUE(QDir(dir.path()).isEmpty());
    exportFigure(figure, QDir(dir.path()).filePath("x.svg"), QSize(400, 400));
    EXPECT_EQ(QDir(dir.path()).entryList(QDir::Files), QStringList{QStringLiteral("x.svg")});
}

}  // namespace
}  // namespace qkv::ui::test
