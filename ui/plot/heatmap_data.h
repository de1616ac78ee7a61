#pragma once
// A matrix ready to be drawn as a heatmap: its cells (NaN marks a masked cell), tick labels for
// rows and columns, and the colour range. Built from core results by the functions in
// head_matrices.h and metric_matrices.h; drawn by HeatmapFigure. Small matrices computed cell by
// cell keep their values; a head's matrices are read in place from the trace (`cells`).
#include <QString>
#include <QStringList>
#include <algorithm>
#include <cmath>
#include <memory>
#include <vector>

#include "ui/plot/heatmap_cells.h"

namespace qkv::ui {

struct HeatmapData {
    int rows = 0;
    int cols = 0;
    std::vector<double> values;                 // rows * cols, row-major; empty with `cells`
    std::shared_ptr<const HeatmapCells> cells;  // when set, the cells instead of `values`
    QStringList rowLabels;
    QStringList colLabels;
    QString rowTitle;
    QString colTitle;
    QString scaleLabel;
    bool diverging = false;  // signed data: diverging map, range symmetric around zero
    double low = 0;
    double high = 1;

    bool empty() const { return rows == 0 || cols == 0; }
    double at(int row, int col) const {
        return cells ? cells->at(row, col) : values[static_cast<size_t>(row) * cols + col];
    }
    double& at(int row, int col) { return values[static_cast<size_t>(row) * cols + col]; }
};

// Row-major samples of a window (cell_sampling.h): the largest value of the cells each covers,
// the one of largest magnitude for diverging data.
std::vector<double> sampleHeatmap(const HeatmapData& data, const AxisSampling& rows,
                                  const AxisSampling& cols);

// The largest |cell(row, col)| over the finite cells of a rows x cols matrix (0 when there are
// none).
template <class Cell>
double largestMagnitude(int rows, int cols, Cell cell) {
    double m = 0;
    for (int r = 0; r < rows; ++r)
        for (int c = 0; c < cols; ++c)
            if (const double v = cell(r, c); std::isfinite(v)) m = std::max(m, std::abs(v));
    return m;
}
// The largest |value| over the finite cells (0 when there are none).
double maxAbsValue(const HeatmapData& data);
// Sets a diverging range [-m, m] centred at zero, m the largest |value| but at least `floor`, so
// float noise around zero (S - S^T under shared-qk) stays white instead of filling the scale.
void setSymmetricRange(HeatmapData& data, double floor);
// Sets the range [-extent, extent]; [-1, 1] when extent is not positive (every cell zero).
void setSymmetricExtent(HeatmapData& data, double extent);
// Gives both the union of their ranges, so two panels share one colour scale.
void shareRange(HeatmapData& a, HeatmapData& b);

}  // namespace qkv::ui
