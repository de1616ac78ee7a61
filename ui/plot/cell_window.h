#pragma once
// The part of a rows x cols heatmap on screen, in cell coordinates (x: columns, y: rows; cell
// (r, c) spans [c - 0.5, c + 0.5] x [r - 0.5, r + 0.5]). Zooming scales both sides alike and
// panning only moves the window, so it keeps the matrix's aspect (square cells stay square) and
// never leaves the matrix.
#include <QPointF>
#include <QRectF>

namespace qkv::ui {

// The fewest cells a zoomed window shows across its narrower side (fewer when the matrix has).
constexpr double kMinWindowCells = 4;

QRectF fullWindow(int rows, int cols);
bool isFullWindow(const QRectF& window, int rows, int cols);
// `factor` < 1 zooms in, > 1 out, about `anchor` (which stays where it is on screen).
QRectF zoomedWindow(const QRectF& window, QPointF anchor, double factor, int rows, int cols);
// Moved by `delta` cells, then pushed back inside the matrix.
QRectF pannedWindow(const QRectF& window, QPointF delta, int rows, int cols);

}  // namespace qkv::ui
