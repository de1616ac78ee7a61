#pragma once
// The Head tab: one head's heatmap (attention, raw scores or S - S^T) under the chosen
// configuration, with A_ij, S_ij and S_ji for the cell under the mouse. A click selects the token
// pair for the weight panel.
#include "ui/views/document_view.h"

namespace qkv::ui {

class HeatmapWidget;
struct HeatmapCell;

class HeadView : public DocumentView {
    Q_OBJECT
public:
    explicit HeadView(LabDocument& document, QWidget* parent = nullptr);
    HeatmapWidget* heatmap() const { return m_heatmap; }

protected:
    void refresh() override;

private:
    QString cellToolTip(const HeatmapCell& cell) const;
    void onCellClicked(const HeatmapCell& cell);

    HeatmapWidget* m_heatmap;
};

}  // namespace qkv::ui
