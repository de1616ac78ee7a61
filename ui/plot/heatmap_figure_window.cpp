// HeatmapFigure's window over its cells: zooming and panning (the same window in every panel),
// the cells sampled for the pixels a panel has, and which cell a pixel shows.
#include <qcustomplot.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "ui/plot/cell_window.h"
#include "ui/plot/heatmap_figure.h"

namespace qkv::ui {
namespace {

// The centres of the first and last samples. A single sample is stored as two equal halves:
// QCPColorMap derives the cell width from (size - 1) and would draw one cell with zero width.
QCPRange sampleRange(const AxisSampling& axis) {
    if (axis.size() == 1) return QCPRange(axis.lower - axis.step / 4, axis.lower + axis.step / 4);
    return QCPRange(axis.lower, axis.upper());
}

AxisSampling panelAxis(double begin, double end, int cells, int pixels) {
    if (cells <= HeatmapFigure::kWholeAxisCells) return sampleAxis(-0.5, cells - 0.5, cells, cells);
    return sampleAxis(begin, end, cells, pixels);
}

}  // namespace

QRectF HeatmapFigure::panelWindow(size_t panel, bool full) const {
    const HeatmapData& d = m_spec.panels.at(panel).data;
    return m_window && !full ? *m_window : fullWindow(d.rows, d.cols);
}

void HeatmapFigure::applyWindow(size_t panel) {
    const QRectF w = panelWindow(panel);
    m_drawn[panel].rect->axis(QCPAxis::atBottom)->setRange(w.left(), w.right());
    m_drawn[panel].rect->axis(QCPAxis::atLeft)->setRange(w.top(), w.bottom());
}

bool HeatmapFigure::canZoom() const {
    if (m_drawn.empty()) return false;
    const HeatmapData& first = m_spec.panels.front().data;
    return std::all_of(m_spec.panels.begin(), m_spec.panels.end(), [&](const HeatmapPanel& p) {
        return p.data.rows == first.rows && p.data.cols == first.cols;
    });
}

QRectF HeatmapFigure::window() const { return m_drawn.empty() ? QRectF() : panelWindow(0); }

void HeatmapFigure::setWindow(const QRectF& window) {
    if (!canZoom()) return;
    const HeatmapData& d = m_spec.panels.front().data;
    if (isFullWindow(window, d.rows, d.cols))
        m_window.reset();
    else
        m_window = window;
    for (size_t i = 0; i < m_drawn.size(); ++i) applyWindow(i);
    // Margins fit the widest label in view; while zoomed they only grow, so the cells do not
    // shift sideways each time labels of another width scroll into view.
    for (const Drawn& drawn : m_drawn)
        drawn.rect->setMinimumMargins(m_window ? drawn.rect->margins() : QMargins());
    // Label strides and margins follow the cells' new size.
    fitCells(m_plot->viewport().size());
}

void HeatmapFigure::resetWindow() {
    if (!m_drawn.empty()) setWindow(panelWindow(0, true));
}

void HeatmapFigure::zoomAt(const QPoint& pixel, double factor) {
    if (!canZoom()) return;
    const HeatmapData& d = m_spec.panels.front().data;
    const QRectF current = window();
    QPointF anchor = current.center();
    for (const Drawn& drawn : m_drawn)
        if (drawn.rect->rect().contains(pixel)) {
            anchor = {drawn.rect->axis(QCPAxis::atBottom)->pixelToCoord(pixel.x()),
                      drawn.rect->axis(QCPAxis::atLeft)->pixelToCoord(pixel.y())};
            break;
        }
    setWindow(zoomedWindow(current, anchor, factor, d.rows, d.cols));
}

void HeatmapFigure::panByPixels(const QPoint& delta) {
    if (!canZoom() || !m_window) return;
    const HeatmapData& d = m_spec.panels.front().data;
    const QRect r = m_drawn.front().rect->rect();
    if (r.isEmpty()) return;
    const QPointF cells(-delta.x() * m_window->width() / r.width(),
                        -delta.y() * m_window->height() / r.height());
    setWindow(pannedWindow(*m_window, cells, d.rows, d.cols));
}

void HeatmapFigure::updateSamples() {
    for (size_t i = 0; i < m_drawn.size(); ++i) {
        const Drawn& drawn = m_drawn[i];
        const QSize pixels = drawn.rect->rect().size();
        const QRectF w = panelWindow(i);
        if (pixels.isEmpty() || (w == drawn.sampledWindow && pixels == drawn.sampledPixels))
            continue;
        sample(i, w, pixels);
    }
}

void HeatmapFigure::sample(size_t panel, const QRectF& window, const QSize& pixels) {
    const HeatmapData& d = m_spec.panels[panel].data;
    Drawn& drawn = m_drawn[panel];
    drawn.rowSamples = panelAxis(window.top(), window.bottom(), d.rows, pixels.height());
    drawn.colSamples = panelAxis(window.left(), window.right(), d.cols, pixels.width());
    drawn.sampledWindow = window;
    drawn.sampledPixels = pixels;
    const AxisSampling& rows = drawn.rowSamples;
    const AxisSampling& cols = drawn.colSamples;
    const std::vector<double> values = sampleHeatmap(d, rows, cols);
    QCPColorMapData* data = drawn.map->data();
    const int keys = std::max(cols.size(), 2 * (cols.size() == 1));
    const int valueCount = std::max(rows.size(), 2 * (rows.size() == 1));
    data->setSize(keys, valueCount);
    data->setRange(sampleRange(cols), sampleRange(rows));
    for (int v = 0; v < valueCount; ++v)
        for (int k = 0; k < keys; ++k)
            data->setCell(k, v,
                          values[static_cast<size_t>(std::min(v, rows.size() - 1)) * cols.size() +
                                 std::min(k, cols.size() - 1)]);
}

std::optional<HeatmapCell> HeatmapFigure::cellAt(const QPoint& pixel) const {
    for (size_t i = 0; i < m_drawn.size(); ++i) {
        const Drawn& drawn = m_drawn[i];
        if (!drawn.rect->rect().contains(pixel)) continue;
        const HeatmapData& d = m_spec.panels[i].data;
        const int col = static_cast<int>(
            std::lround(drawn.rect->axis(QCPAxis::atBottom)->pixelToCoord(pixel.x())));
        const int row = static_cast<int>(
            std::lround(drawn.rect->axis(QCPAxis::atLeft)->pixelToCoord(pixel.y())));
        if (row < 0 || col < 0 || row >= d.rows || col >= d.cols) return std::nullopt;
        return HeatmapCell{static_cast<int>(i), row, col};
    }
    return std::nullopt;
}

QPoint HeatmapFigure::cellCenter(const HeatmapCell& cell) const {
    const Drawn& drawn = m_drawn.at(cell.panel);
    return QPoint(
        static_cast<int>(std::lround(drawn.rect->axis(QCPAxis::atBottom)->coordToPixel(cell.col))),
        static_cast<int>(std::lround(drawn.rect->axis(QCPAxis::atLeft)->coordToPixel(cell.row))));
}

double HeatmapFigure::shownValue(const HeatmapCell& cell) const {
    const Drawn& drawn = m_drawn.at(cell.panel);
    const int key = drawn.colSamples.sampleOf(cell.col);
    const int value = drawn.rowSamples.sampleOf(cell.row);
    if (key < 0 || value < 0) return std::numeric_limits<double>::quiet_NaN();
    return drawn.map->data()->cell(key, value);
}

}  // namespace qkv::ui
