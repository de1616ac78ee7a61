// Zoom and pan windows: zooming keeps the point under the cursor and the matrix's aspect, stops
// at a few cells and at the whole matrix, and panning never leaves the matrix.
#include "ui/plot/cell_window.h"

#include <gtest/gtest.h>

namespace qkv::ui {
namespace {

TEST(CellWindow, ZoomKeepsTheAnchorAndTheAspect) {
    const QRectF full = fullWindow(300, 600);
    EXPECT_TRUE(isFullWindow(full, 300, 600));
    const QPointF anchor(450.0, 100.0);
    const QRectF zoomed = zoomedWindow(full, anchor, 0.25, 300, 600);
    EXPECT_DOUBLE_EQ(zoomed.width(), 150.0);
    EXPECT_DOUBLE_EQ(zoomed.height(), 75.0);
    // The anchor sits at the same fraction of the window before and after.
    EXPECT_DOUBLE_EQ((anchor.x() - zoomed.left()) / zoomed.width(),
                     (anchor.x() - full.left()) / full.width());
    EXPECT_DOUBLE_EQ((anchor.y() - zoomed.top()) / zoomed.height(),
                     (anchor.y() - full.top()) / full.height());
    EXPECT_FALSE(isFullWindow(zoomed, 300, 600));
}

TEST(CellWindow, ZoomStopsAtAFewCellsAndAtTheWholeMatrix) {
    const QRectF tiny = zoomedWindow(fullWindow(100, 100), {50, 50}, 1e-6, 100, 100);
    EXPECT_DOUBLE_EQ(tiny.width(), kMinWindowCells);
    EXPECT_DOUBLE_EQ(tiny.height(), kMinWindowCells);
    const QRectF back = zoomedWindow(tiny, {50, 50}, 1e6, 100, 100);
    EXPECT_TRUE(isFullWindow(back, 100, 100));
    // A matrix narrower than the limit zooms no further than its own side.
    const QRectF row = zoomedWindow(fullWindow(2, 40), {10, 0}, 1e-6, 2, 40);
    EXPECT_DOUBLE_EQ(row.height(), 2.0);
    EXPECT_DOUBLE_EQ(row.width(), 40.0);
}

TEST(CellWindow, ZoomNearAnEdgeAndPanningStayInsideTheMatrix) {
    const QRectF corner = zoomedWindow(fullWindow(64, 64), {-0.5, 63.5}, 0.5, 64, 64);
    EXPECT_DOUBLE_EQ(corner.left(), -0.5);
    EXPECT_DOUBLE_EQ(corner.bottom(), 63.5);
    const QRectF panned = pannedWindow(corner, {-10, 10}, 64, 64);
    EXPECT_EQ(panned, corner) << "already at the bottom-left corner";
    const QRectF right = pannedWindow(corner, {100, -5}, 64, 64);
    EXPECT_DOUBLE_EQ(right.right(), 63.5);
    EXPECT_DOUBLE_EQ(right.top(), corner.top() - 5);
    EXPECT_DOUBLE_EQ(right.width(), corner.width());
}

}  // namespace
}  // namespace qkv::ui
