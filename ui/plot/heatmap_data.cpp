#include "ui/plot/heatmap_data.h"

#include <algorithm>
#include <cmath>

namespace qkv::ui {

double maxAbsValue(const HeatmapData& data) {
    double m = 0;
    for (double v : data.values)
        if (std::isfinite(v)) m = std::max(m, std::abs(v));
    return m;
}

void setSymmetricRange(HeatmapData& data, double floor) {
    double extent = std::max(maxAbsValue(data), floor);
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
