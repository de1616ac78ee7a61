// How long the Head tab takes to draw a 4,096-token head on the GUI thread: a whole redraw
// (the head's 4096 x 4096 matrix turned into heatmap data, sampled to the panel's pixels and
// painted), a wheel notch from the whole matrix, the whole matrix shown again (Ctrl+0), and a
// wheel notch and a drag step while zoomed in to cells. Each includes the replot and the paint,
// the median of five runs in an optimised build without a sanitizer (the others run each step
// once). The times are printed, not asserted (see tests/ui/measurement.h; about 200, 25 and
// 5 ms on the 2-core development machine); what is asserted is that each step leaves the view
// as it should be and that the figure copied under 1 MB of cells out of the trace.
#include <QApplication>
#include <QElapsedTimer>
#include <QWheelEvent>
#include <algorithm>
#include <functional>
#include <iostream>

#include "tests/ui/long_input_support.h"
#include "tests/ui/measurement.h"
#include "ui/views/head_view.h"
#include "ui/views/heatmap_widget.h"

namespace qkv::ui::test {
namespace {

// In debug and sanitizer builds (the tsan step runs this suite), each step once, on a shorter
// input: a 4,096-token forward takes minutes there, and 1,024 cells still outnumber the panel's
// pixels, so the same sampling paths run.
constexpr int kTimedRuns = kFullMeasurement ? 5 : 1;
constexpr int kTokens = kFullMeasurement ? kLongInputTokens : 1024;

// Runs what `step` queued (the wheel and drags replot on the next turn of the event loop), then
// paints `widget` at once.
void finish(QWidget* widget) {
    QCoreApplication::processEvents();
    widget->repaint();
}

// The median duration of `step`, its replot and its paint; `prepare` runs untimed before each.
double medianMs(
    QWidget* widget, const std::function<void(int)>& step,
    const std::function<void()>& prepare = [] {}) {
    std::vector<double> ms;
    for (int run = 0; run < kTimedRuns; ++run) {
        prepare();
        finish(widget);
        QElapsedTimer clock;
        clock.start();
        step(run);
        finish(widget);
        ms.push_back(clock.nsecsElapsed() / 1e6);
    }
    std::nth_element(ms.begin(), ms.begin() + kTimedRuns / 2, ms.end());
    return ms[kTimedRuns / 2];
}

void wheel(QWidget* plot, QPoint at, int notches) {
    QWheelEvent event(at, plot->mapToGlobal(at), QPoint(), QPoint(0, 120 * notches), Qt::NoButton,
                      Qt::NoModifier, Qt::NoScrollPhase, false);
    QApplication::sendEvent(plot, &event);
}

// What the figure's panels hold of their own cells, beyond the trace they read.
size_t copiedCellBytes(const HeatmapFigure& figure) {
    size_t bytes = 0;
    for (const HeatmapPanel& panel : figure.spec().panels)
        bytes += panel.data.values.capacity() * sizeof(double);
    return bytes;
}

using LongInputDrawThreadTest = LongInputTest;

TEST_F(LongInputDrawThreadTest, HeadViewRedrawsZoomsAndPansA4096TokenHeadReadingTheTraceInPlace) {
    ASSERT_TRUE(openLongInputModel());
    ASSERT_TRUE(typeTokenIds(kTokens));
    HeatmapWidget* heatmap = window->headView()->heatmap();
    HeatmapFigure& figure = heatmap->figure();
    QWidget* plot = heatmap->plot();
    ASSERT_TRUE(heatmap->isShowingFigure());
    const QRect panel = figure.colorMap(0)->keyAxis()->axisRect()->rect();

    // A whole redraw: the mode switches back and forth (both matrices are captured).
    const double redrawMs = medianMs(plot, [&](int run) {
        doc().setMode(run % 2 == 0 ? HeatmapMode::Scores : HeatmapMode::Attention);
    });
    EXPECT_EQ(figure.spec().panels.at(0).data.rows, kTokens);
    const double copiedMb = copiedCellBytes(figure) / double(1 << 20);
    const double zoomOutMs = medianMs(
        plot, [&](int run) { wheel(plot, panel.center() + QPoint(run, run), 1); },
        [&] { heatmap->resetZoom(); });
    const double fullMs = medianMs(
        plot, [&](int) { heatmap->resetZoom(); }, [&] { heatmap->zoomBy(0.8); });
    figure.setWindow(QRectF(kTokens / 2 - 0.5, kTokens / 2 - 0.5, 48, 48));
    heatmap->plot()->replot();
    ASSERT_TRUE(figure.rowSamples(0).cellLevel);
    const double zoomedWheelMs =
        medianMs(plot, [&](int run) { wheel(plot, panel.center(), run % 2 == 0 ? 1 : -1); });
    const QPoint from = panel.center();
    QTest::mousePress(plot, Qt::LeftButton, {}, from);
    const double dragMs = medianMs(plot, [&](int run) {
        QTest::mouseMove(plot, from + QPoint(10 * (run + 1), 6 * (run + 1)));
    });
    QTest::mouseRelease(plot, Qt::LeftButton, {}, from + QPoint(10 * kTimedRuns, 6 * kTimedRuns));
    ASSERT_TRUE(figure.isZoomed());

    std::cout << "[ measure  ] Head tab, " << kTokens << " tokens, panel " << panel.width() << " x "
              << panel.height() << " px, median of " << kTimedRuns << ": redraw from the trace "
              << redrawMs << " ms; whole matrix shown again " << fullMs
              << " ms; wheel notch zoomed out " << zoomOutMs << " ms; zoomed to cells: wheel notch "
              << zoomedWheelMs << " ms, drag step " << dragMs
              << " ms; cells copied into the figure " << copiedMb << " MB\n";
    RecordProperty("redraw_ms", std::to_string(redrawMs));
    RecordProperty("zoom_out_wheel_ms", std::to_string(zoomOutMs));
    RecordProperty("zoomed_drag_ms", std::to_string(dragMs));
    RecordProperty("copied_cells_mb", std::to_string(copiedMb));
    // The figure reads the trace's matrix in place: a copy of the head would be 64 MB as floats.
    EXPECT_LT(copiedMb, 1.0);
}

}  // namespace
}  // namespace qkv::ui::test
