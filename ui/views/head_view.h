#pragma once
// The Head tab: one head's heatmap (attention, raw scores or S - S^T) under the chosen
// configuration, with A_ij, S_ij and S_ji for the cell under the mouse, and a line to name the
// head ("induction"), which its title then shows.
#include "ui/views/head_figure_view.h"

class QLineEdit;

namespace qkv::ui {

class HeadView : public HeadFigureView {
    Q_OBJECT
  public:
    explicit HeadView(LabDocument& document, QWidget* parent = nullptr);
    QLineEdit* nameEditor() const { return m_name; }

  protected:
    FigureSpec buildFigure(const HeadFigureInput& input) const override;
    QString cellValues(const HeatmapCell& cell) const override;
    bool drawsBand() const override { return true; }

  private:
    void showCurrentName();

    QLineEdit* m_name;
};

}  // namespace qkv::ui
