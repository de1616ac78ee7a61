#pragma once
// The Head tab: one head's heatmap (attention, raw scores or S - S^T) under the chosen
// configuration, with A_ij, S_ij and S_ji for the cell under the mouse.
#include "ui/views/head_figure_view.h"

namespace qkv::ui {

class HeadView : public HeadFigureView {
    Q_OBJECT
  public:
    explicit HeadView(LabDocument& document, QWidget* parent = nullptr);

  protected:
    FigureSpec buildFigure(const HeadFigureInput& input) const override;
    QString cellValues(const HeatmapCell& cell) const override;
};

}  // namespace qkv::ui
