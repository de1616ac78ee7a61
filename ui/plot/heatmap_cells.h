#pragma once
// The cells of a heatmap read where they already are, a head's float matrix in the trace, instead
// of copied into doubles: a 4096-token head would cost 128 MB per figure and 85 ms per redraw.
// HeatmapFigure samples only the visible window (sample()); exports, tooltips and tests read
// single cells (at()).
#include <memory>
#include <utility>
#include <vector>

#include "ui/plot/cell_sampling.h"

namespace qkv::ui {

class HeatmapCells {
  public:
    virtual ~HeatmapCells() = default;
    virtual double at(int row, int col) const = 0;
    // Row-major rows.size() x cols.size() samples of a window, as sampleCells computes them.
    virtual std::vector<double> sample(const AxisSampling& rows, const AxisSampling& cols,
                                       Reduction reduction) const = 0;
};

namespace detail {

// Sampling calls `cell` inlined: a virtual call for each of a window's 16 million cells would
// cost much of what the copy did.
template <class Cell>
class CellFunction final : public HeatmapCells {
  public:
    explicit CellFunction(Cell cell) : m_cell(std::move(cell)) {}
    double at(int row, int col) const override { return m_cell(row, col); }
    std::vector<double> sample(const AxisSampling& rows, const AxisSampling& cols,
                               Reduction reduction) const override {
        return sampleCells(rows, cols, reduction, m_cell);
    }

  private:
    Cell m_cell;
};

}  // namespace detail

// `cell(row, col)` computes one cell from what it owns or shares (capture a shared_ptr by value,
// so the matrix outlives every figure that reads it).
template <class Cell>
std::shared_ptr<const HeatmapCells> heatmapCells(Cell cell) {
    return std::make_shared<const detail::CellFunction<Cell>>(std::move(cell));
}

}  // namespace qkv::ui
