#include "ui/plot/heatmap_data.h"

#include <algorithm>
#include <cmath>

namespace qkv::ui {

double maxAbsValue(const HeatmapData& data) {
    return largestMagnitude(data.rows, data.cols, [&data](int r, int c) { return data.at(r, c); });
}

std::vector<double> sampleHeatmap(const HeatmapData& data, const AxisSampling& rows,
                                  const AxisSampling& cols) {
    const Reduction reduction = data.diverging ? Reduction::LargestMagnitude : Reduction::Largest;
    if (data.cells) return data.cells->sample(rows, cols, reduction);
    return sampleCells(rows, cols, reduction, [&data](int r, int c) { return data.at(r, c); });
}

void setSymmetricRange(HeatmapData& data, double floor) {
    setSymmetricExtent(data, std::max(maxAbsValue(data), floor));
}

void setSymmetricExtent(HeatmapData& data, double extent) {
    if (!(extent > 0)) extent = 1.0;
    data.low = -extent;
    data.high = extent;
}

void shareRange(HeatmapData& a, HeatmapData& b) {
    const double low = std::min(a.low, b.low);
    const double high = std::max(a.high, b.high);
    a.low = b.low = low;
    a.high = b.high = high;
}

}  // namespace qkv::ui
