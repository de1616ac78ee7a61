#include "ui/plot/cell_window.h"

#include <algorithm>
#include <cmath>

namespace qkv::ui {
namespace {

// Shifted (not shrunk) so that it lies inside `bounds`; no larger than it.
QRectF inside(QRectF window, const QRectF& bounds) {
    if (window.width() >= bounds.width() || window.height() >= bounds.height()) return bounds;
    window.moveLeft(std::clamp(window.left(), bounds.left(), bounds.right() - window.width()));
    window.moveTop(std::clamp(window.top(), bounds.top(), bounds.bottom() - window.height()));
    return window;
}

}  // namespace

QRectF fullWindow(int rows, int cols) { return {-0.5, -0.5, double(cols), double(rows)}; }

bool isFullWindow(const QRectF& window, int rows, int cols) {
    constexpr double kTolerance = 1e-9;
    const QRectF full = fullWindow(rows, cols);
    return std::abs(window.left() - full.left()) < kTolerance &&
           std::abs(window.top() - full.top()) < kTolerance &&
           std::abs(window.width() - full.width()) < kTolerance &&
           std::abs(window.height() - full.height()) < kTolerance;
}

QRectF zoomedWindow(const QRectF& window, QPointF anchor, double factor, int rows, int cols) {
    const QRectF full = fullWindow(rows, cols);
    const double narrow = std::min(full.width(), full.height());
    const double smallest = std::min(kMinWindowCells, narrow) / narrow;  // as a share of full
    const double share = std::clamp(window.width() / full.width() * factor, smallest, 1.0);
    if (share >= 1.0) return full;
    const double scale = share * full.width() / window.width();  // the factor after clamping
    const QRectF zoomed(anchor.x() + (window.left() - anchor.x()) * scale,
                        anchor.y() + (window.top() - anchor.y()) * scale, share * full.width(),
                        share * full.height());
    return inside(zoomed, full);
}

QRectF pannedWindow(const QRectF& window, QPointF delta, int rows, int cols) {
    return inside(window.translated(delta), fullWindow(rows, cols));
}

}  // namespace qkv::ui
