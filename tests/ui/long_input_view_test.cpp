// A 4,096-token sentence in the Head tab (a tiny random GPT-2 whose context is 4,096, ids typed
// after '#'): the heatmap hands QCustomPlot at most one sample per pixel, each the strongest of
// the cells it covers; zooming (programmatically, by the wheel about the cursor, by the keyboard)
// reaches single cells, which are then the trace's own probabilities; labels appear once they
// fit; a drag pans without selecting; Ctrl+0 shows the whole matrix again; a head the capture
// policy did not keep is computed and drawn in the same zoomed window.
#include <qcustomplot.h>

#include <QApplication>
#include <QWheelEvent>
#include <algorithm>
#include <cmath>

#include "tests/ui/long_input_support.h"
#include "ui/plot/cell_window.h"
#include "ui/views/head_view.h"
#include "ui/views/heatmap_widget.h"

namespace qkv::ui::test {
namespace {

constexpr double kTolerance = 1e-6;  // float probabilities stored as double: exact to rounding

class LongInputViewTest : public LongInputTest {
  protected:
    void SetUp() override {
        LongInputTest::SetUp();
        ASSERT_TRUE(openLongInputModel());
        ASSERT_TRUE(typeTokenIds(kLongInputTokens));
        ASSERT_FALSE(doc().snapshot()->capturesAll()) << "the policy keeps only the shown head";
        ASSERT_TRUE(heatmap()->isShowingFigure()) << heatmap()->placeholderText().toStdString();
    }
    HeatmapWidget* heatmap() const { return window->headView()->heatmap(); }
    HeatmapFigure& figure() const { return heatmap()->figure(); }
    QRect panel() const { return figure().colorMap(0)->keyAxis()->axisRect()->rect(); }
    const RowMatrixXf& attention() {
        return doc().snapshot()->trace->probabilities(doc().layer(), doc().head());
    }
    // The value of the trace's cell as the heatmap must show it: NaN where causally masked.
    double expected(int row, int col) {
        return col > row ? std::nan("") : static_cast<double>(attention()(row, col));
    }
    void expectCellsExact(int rowFrom, int colFrom, int count) {
        for (int r = rowFrom; r < rowFrom + count; r += 3)
            for (int c = colFrom; c < colFrom + count; c += 3) {
                const double shown = figure().shownValue({0, r, c});
                if (c > r)
                    EXPECT_TRUE(std::isnan(shown)) << "masked cell " << r << "," << c;
                else
                    EXPECT_NEAR(shown, expected(r, c), kTolerance) << "cell " << r << "," << c;
            }
    }
    // How many labels the axis draws inside its current range.
    static int shownLabels(QCPAxis* axis) {
        const auto ticker = qSharedPointerCast<QCPAxisTickerText>(axis->ticker());
        const auto& ticks = ticker->ticks();
        const QCPRange range = axis->range();
        return static_cast<int>(
            std::distance(ticks.lowerBound(range.lower), ticks.upperBound(range.upper)));
    }
    QCPAxis* rowAxis() const { return figure().colorMap(0)->valueAxis(); }
};

TEST_F(LongInputViewTest, DrawsAtMostOneSamplePerPixelKeepingEachPeak) {
    const int n = kLongInputTokens;
    ASSERT_EQ(figure().spec().panels.at(0).data.rows, n);
    QCPColorMapData* data = figure().colorMap(0)->data();
    EXPECT_LE(data->keySize(), panel().width());
    EXPECT_LE(data->valueSize(), panel().height());
    EXPECT_LE(data->keySize(), heatmap()->plot()->width());
    EXPECT_LE(static_cast<size_t>(data->keySize()) * data->valueSize(),
              static_cast<size_t>(heatmap()->plot()->width()) * heatmap()->plot()->height());
    const AxisSampling& rows = figure().rowSamples(0);
    const AxisSampling& cols = figure().columnSamples(0);
    ASSERT_FALSE(rows.cellLevel);
    EXPECT_EQ(rows.first.front(), 0);
    EXPECT_EQ(rows.last.back(), n - 1) << "the samples cover every row";

    // A few samples: each holds the largest probability of the cells it covers.
    for (int s : {0, rows.size() / 3, rows.size() - 1}) {
        double largest = 0;
        for (int r = rows.first[s]; r <= rows.last[s]; ++r)
            for (int c = cols.first[s]; c <= cols.last[s]; ++c)
                if (c <= r) largest = std::max(largest, expected(r, c));
        EXPECT_NEAR(data->cell(s, s), largest, kTolerance) << "diagonal sample " << s;
        const int middleRow = (rows.first[s] + rows.last[s]) / 2;  // in no other sample
        const int middleCol = (cols.first[s] + cols.last[s]) / 2;
        EXPECT_NEAR(figure().shownValue({0, middleRow, middleCol}), largest, kTolerance);
    }
    EXPECT_TRUE(std::isnan(data->cell(cols.size() - 1, 0))) << "the top right is all masked";
}

TEST_F(LongInputViewTest, ZoomingInShowsTheTracesCellsAndTheirLabels) {
    EXPECT_GE(figure().rowLabelStride(0), 50) << "4096 rows: a label every 50 or more";
    EXPECT_LE(shownLabels(rowAxis()), panel().height() / 8);
    const QString firstLabel = figure().spec().panels[0].data.rowLabels.at(2000);

    figure().setWindow(QRectF(1979.5, 1989.5, 32, 32));  // rows and columns 1980..2011
    heatmap()->plot()->replot();
    EXPECT_TRUE(figure().isZoomed());
    EXPECT_TRUE(figure().rowSamples(0).cellLevel);
    EXPECT_TRUE(figure().columnSamples(0).cellLevel);
    EXPECT_EQ(figure().rowSamples(0).first.front(), 1990);
    expectCellsExact(1990, 1980, 32);
    EXPECT_EQ(figure().rowLabelStride(0), 1) << "cells of " << panel().height() / 32 << " px";
    EXPECT_EQ(shownLabels(rowAxis()), 32);
    const auto ticks = qSharedPointerCast<QCPAxisTickerText>(rowAxis()->ticker())->ticks();
    EXPECT_EQ(ticks.value(2000), firstLabel);

    heatmap()->resetZoom();
    EXPECT_FALSE(figure().isZoomed());
    EXPECT_TRUE(isFullWindow(figure().window(), kLongInputTokens, kLongInputTokens));
    EXPECT_FALSE(figure().rowSamples(0).cellLevel);
    EXPECT_GE(figure().rowLabelStride(0), 50);
}

TEST_F(LongInputViewTest, WheelZoomsAboutTheCursorDownToSingleCells) {
    QWidget* plot = heatmap()->plot();
    const QPoint cursor =
        panel().topLeft() + QPoint(panel().width() * 3 / 5, panel().height() * 4 / 5);
    auto cellUnderCursor = [&] {
        const auto cell = figure().cellAt(cursor);
        return cell ? std::pair{cell->row, cell->col} : std::pair{-1, -1};
    };
    const auto before = cellUnderCursor();
    ASSERT_GE(before.first, 0);
    for (int notch = 0; notch < 40 && !figure().rowSamples(0).cellLevel; ++notch) {
        QWheelEvent wheel(cursor, plot->mapToGlobal(cursor), QPoint(), QPoint(0, 120), Qt::NoButton,
                          Qt::NoModifier, Qt::NoScrollPhase, false);
        QApplication::sendEvent(plot, &wheel);
        const auto now = cellUnderCursor();
        EXPECT_LE(std::abs(now.first - before.first), 1) << "notch " << notch;
        EXPECT_LE(std::abs(now.second - before.second), 1) << "notch " << notch;
    }
    ASSERT_TRUE(figure().rowSamples(0).cellLevel) << "the wheel reaches single cells";
    const QRectF w = figure().window();
    expectCellsExact(static_cast<int>(std::ceil(w.top())), static_cast<int>(std::ceil(w.left())),
                     static_cast<int>(w.height()) - 1);

    // Keyboard: Ctrl+- zooms out, Ctrl+0 shows everything again.
    QTest::keyClick(window.get(), Qt::Key_Minus, Qt::ControlModifier);
    EXPECT_NEAR(figure().window().width(), 2 * w.width(), 1e-6);
    QTest::keyClick(window.get(), Qt::Key_0, Qt::ControlModifier);
    EXPECT_FALSE(figure().isZoomed());
    QTest::keyClick(window.get(), Qt::Key_Equal, Qt::ControlModifier);
    EXPECT_NEAR(figure().window().width(), kLongInputTokens / 2.0, 1e-6);
}

TEST_F(LongInputViewTest, DragPansWithoutSelectingAndAClickStillSelects) {
    figure().setWindow(QRectF(999.5, 999.5, 64, 64));
    heatmap()->plot()->replot();
    QWidget* plot = heatmap()->plot();
    const QPoint from = panel().center();
    const double cellPixels = panel().width() / 64.0;
    QTest::mousePress(plot, Qt::LeftButton, {}, from);
    for (int step = 1; step <= 4; ++step)
        QTest::mouseMove(plot, from + QPoint(step * 20, step * 10));
    QTest::mouseRelease(plot, Qt::LeftButton, {}, from + QPoint(80, 40));
    EXPECT_FALSE(doc().tokenPair().has_value()) << "a drag is not a click";
    EXPECT_NEAR(figure().window().left(), 999.5 - 80 / cellPixels, 0.5);
    EXPECT_NEAR(figure().window().top(), 999.5 - 40 / cellPixels, 0.5);

    const HeatmapCell target{0, 1010, 990};
    QTest::mouseClick(plot, Qt::LeftButton, {}, figure().cellCenter(target));
    ASSERT_TRUE(doc().tokenPair().has_value());
    EXPECT_EQ(doc().tokenPair()->query, target.row);
    EXPECT_EQ(doc().tokenPair()->key, target.col);
    EXPECT_TRUE(figure().isZoomed()) << "selecting keeps the zoom";
}

TEST_F(LongInputViewTest, AHeadThatWasNotCapturedIsComputedAndKeepsTheZoom) {
    figure().setWindow(QRectF(2047.5, 2047.5, 48, 48));
    ASSERT_FALSE(doc().snapshot()->includes(1, 1));
    doc().setHead(1, 1);
    ASSERT_TRUE(settle());
    ASSERT_TRUE(waitFor([&] { return heatmap()->isShowingFigure(); }));
    ASSERT_TRUE(doc().snapshot()->includes(1, 1));
    EXPECT_EQ(figure().spec().title.left(16), QStringLiteral("Layer 1 · Head 1"));
    EXPECT_TRUE(figure().isZoomed());
    expectCellsExact(2048, 2048, 48);
}

// The trace keeps q, k and v of the shown head's layer alone (a GPU would spend most of a long
// forward sending every layer's to the host); a head of another layer brings its own.
TEST_F(LongInputViewTest, KeepsTheShownLayersQueriesKeysAndValuesOnly) {
    auto expectVectorsOf = [&](int shown) {
        const AttentionTrace& trace = *doc().snapshot()->trace;
        ASSERT_GT(trace.layerCount(), 1);
        for (int l = 0; l < trace.layerCount(); ++l) EXPECT_EQ(trace.hasVectors(l), l == shown);
        EXPECT_EQ(trace.key(shown, doc().head()).rows(), kLongInputTokens);
    };
    ASSERT_EQ(doc().layer(), 0);
    expectVectorsOf(0);
    doc().setHead(1, 1);
    ASSERT_TRUE(settle());
    ASSERT_TRUE(doc().snapshot()->includes(1, 1));
    expectVectorsOf(1);
}

}  // namespace
}  // namespace qkv::ui::test
