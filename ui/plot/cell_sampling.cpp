#include "ui/plot/cell_sampling.h"

namespace qkv::ui {

int AxisSampling::sampleOf(int cell) const {
    const auto it = std::lower_bound(last.begin(), last.end(), cell);
    if (it == last.end()) return -1;
    const int s = static_cast<int>(it - last.begin());
    return first[s] <= cell ? s : -1;
}

AxisSampling sampleAxis(double begin, double end, int cells, int pixels) {
    AxisSampling axis;
    if (cells <= 0 || pixels <= 0) return axis;
    begin = std::clamp(begin, -0.5, cells - 0.5);
    end = std::clamp(end, begin, cells - 0.5);
    auto cellAt = [cells](double x) { return std::clamp(static_cast<int>(x), 0, cells - 1); };
    // Cells whose span reaches into [begin, end].
    const int firstCell = cellAt(std::floor(begin + 0.5));
    const int lastCell = std::max(firstCell, cellAt(std::ceil(end - 0.5)));
    const int visible = lastCell - firstCell + 1;
    if (visible <= pixels) {
        for (int c = firstCell; c <= lastCell; ++c) {
            axis.first.push_back(c);
            axis.last.push_back(c);
        }
        axis.lower = firstCell;
        return axis;
    }
    axis.cellLevel = false;
    axis.step = (end - begin) / pixels;
    axis.lower = begin + axis.step / 2;
    axis.first.reserve(pixels);
    axis.last.reserve(pixels);
    for (int s = 0; s < pixels; ++s) {
        const double from = begin + s * axis.step;
        const double to = from + axis.step;
        const int first = cellAt(std::floor(from + 0.5));
        axis.first.push_back(first);
        axis.last.push_back(std::max(first, cellAt(std::ceil(to - 0.5))));
    }
    return axis;
}

}  // namespace qkv::ui
