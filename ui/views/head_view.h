#pragma once
// The Head tab: one head's heatmap (attention, raw scores or S - S^T) under the chosen
// configuration, with A_ij, S_ij and S_ji for the cell under the mouse, and a line to name the
// head ("induction"), which its title then shows. On a layer whose mask hides keys (a sliding
// window, Llama 4's chunks) "What the mask hides" adds the dense counterfactual beside the
// attention, each row labelled with the mass the mask drops (core/analysis/hidden_keys.h).
#include "ui/views/head_figure_view.h"

class QCheckBox;
class QLineEdit;

namespace qkv::ui {

class HeadView : public HeadFigureView {
    Q_OBJECT
  public:
    explicit HeadView(LabDocument& document, QWidget* parent = nullptr);
    QLineEdit* nameEditor() const { return m_name; }
    QCheckBox* hiddenToggle() const { return m_hidden; }

  protected:
    FigureSpec buildFigure(const HeadFigureInput& input) const override;
    QString cellValues(const HeatmapCell& cell) const override;
    bool drawsBand() const override { return true; }

  private:
    void showCurrentName();
    // Whether the figure shows the counterfactual: asked, and the head's layer hides keys.
    bool showsHidden() const;
    // Whether the shown layer hides keys from its heads: a window, chunks or an indexer's choice.
    bool hidesKeysHere() const;

    QLineEdit* m_name;
    QCheckBox* m_hidden;
};

}  // namespace qkv::ui
