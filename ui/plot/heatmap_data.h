#pragma once
// A matrix ready to be drawn as a heatmap: values row-major (NaN marks a masked cell), tick labels
// for rows and columns, and the colour range. Built from core results by the functions in
// head_matrices.h and metric_matrices.h; drawn by HeatmapFigure.
#include <QString>
#include <QStringList>
#include <vector>

namespace qkv::ui {

struct HeatmapData {
    int rows = 0;
    int cols = 0;
    std::vector<double> values;  // rows * cols, row-major
    QStringList rowLabels;
    QStringList colLabels;
    QString rowTitle;
    QString colTitle;
    QString scaleLabel;
    bool diverging = false;  // signed data: diverging map, range symmetric around zero
    double low = 0;
    double high = 1;

    bool empty() const { return rows == 0 || cols == 0; }
    double at(int row, int col) const { return values[static_cast<size_t>(row) * cols + col]; }
    double& at(int row, int col) { return values[static_cast<size_t>(row) * cols + col]; }
};

// The largest |value| over the finite cells (0 when there are none).
double maxAbsValue(const HeatmapData& data);
// Sets a diverging range [-m, m] centred at zero, m the largest |value| but at least `floor`, so
// float noise around zero (S - S^T under shared-qk) stays white instead of filling the scale.
void setSymmetricRange(HeatmapData& data, double floor);
// Gives both the union of their ranges, so two panels share one colour scale.
void shareRange(HeatmapData& a, HeatmapData& b);

}  // namespace qkv::ui
