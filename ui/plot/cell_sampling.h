#pragma once
// Level of detail for drawing a large matrix: the cells of a window of it reduced to at most one
// sample per screen pixel, so a 4096 x 4096 attention matrix is drawn from a few hundred thousand
// numbers, never from all sixteen million. Where cells are a pixel or larger every sample is one
// cell, so small matrices are drawn cell for cell.
//
// A sample keeps the extreme of the cells it covers rather than their mean: a head that puts all
// of a row's attention on one key must still show that key when the row is a tenth of a pixel
// tall, and a mean would dilute it to the background colour. Signed data keeps the value of
// largest magnitude, so strong negative scores survive as well as positive ones. Masked cells (NaN)
// are skipped; a sample is NaN only when every cell it covers is.
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

namespace qkv::ui {

// How the samples of one axis cover its cells. Cell i spans [i - 0.5, i + 0.5] in cell
// coordinates; sample s covers cells first[s] .. last[s] (inclusive; neighbours may share one).
struct AxisSampling {
    std::vector<int> first;
    std::vector<int> last;
    double lower = 0;       // centre of the first sample, in cell coordinates
    double step = 1;        // width of a sample, in cells
    bool cellLevel = true;  // each sample is exactly one cell

    int size() const { return static_cast<int>(first.size()); }
    double upper() const { return lower + step * (size() - 1); }
    // The first sample covering `cell`, or -1 when no sample does.
    int sampleOf(int cell) const;
};

// Samples for the part [begin, end] (cell coordinates) of an axis of `cells` cells drawn over
// `pixels` pixels: one per visible cell where they fit, else one per pixel.
AxisSampling sampleAxis(double begin, double end, int cells, int pixels);

enum class Reduction {
    Largest,           // attention, similarities: the strongest cell shows
    LargestMagnitude,  // signed data: the cell farthest from zero, with its sign
};

namespace detail {

// One pass over the covered cells, `keep(kept, candidate)` choosing the value to keep.
template <class CellValue, class Keep>
std::vector<double> reduceCells(const AxisSampling& rows, const AxisSampling& cols, CellValue at,
                                Keep keep) {
    std::vector<double> samples(static_cast<size_t>(rows.size()) * cols.size(),
                                std::numeric_limits<double>::quiet_NaN());
    for (int rs = 0; rs < rows.size(); ++rs) {
        double* out = samples.data() + static_cast<size_t>(rs) * cols.size();
        for (int r = rows.first[rs]; r <= rows.last[rs]; ++r)
            for (int cs = 0; cs < cols.size(); ++cs) {
                double kept = out[cs];
                for (int c = cols.first[cs]; c <= cols.last[cs]; ++c) kept = keep(kept, at(r, c));
                out[cs] = kept;
            }
    }
    return samples;
}

}  // namespace detail

// Row-major rows.size() x cols.size() samples; `at(row, col)` reads one cell.
template <class CellValue>
std::vector<double> sampleCells(const AxisSampling& rows, const AxisSampling& cols,
                                Reduction reduction, CellValue at) {
    if (reduction == Reduction::Largest)
        return detail::reduceCells(rows, cols, at, [](double kept, double v) {
            return kept >= v || std::isnan(v) ? kept : v;
        });
    return detail::reduceCells(rows, cols, at, [](double kept, double v) {
        return std::isnan(kept) || std::abs(v) > std::abs(kept) ? v : kept;
    });
}

}  // namespace qkv::ui
