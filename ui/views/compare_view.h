#pragma once
// The Compare tab: the same head under the learned weights and under the chosen configuration,
// side by side on one colour scale, and their difference on a diverging scale.
#include "ui/views/document_view.h"

class QLabel;

namespace qkv::ui {

class HeatmapWidget;
struct HeatmapCell;

class CompareView : public DocumentView {
    Q_OBJECT
public:
    explicit CompareView(LabDocument& document, QWidget* parent = nullptr);
    HeatmapWidget* heatmap() const { return m_heatmap; }

protected:
    void refresh() override;

private:
    QString cellToolTip(const HeatmapCell& cell) const;

    QLabel* m_hint;
    HeatmapWidget* m_heatmap;
};

}  // namespace qkv::ui
