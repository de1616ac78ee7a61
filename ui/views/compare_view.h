#pragma once
// The Compare tab: the same head under the learned weights and under the chosen configuration,
// side by side on one colour scale, and their difference on a diverging scale.
#include "ui/views/head_figure_view.h"

class QCheckBox;
class QLabel;

namespace qkv::ui {

class CompareView : public HeadFigureView {
    Q_OBJECT
  public:
    explicit CompareView(LabDocument& document, QWidget* parent = nullptr);

  protected:
    FigureSpec buildFigure(const HeadFigureInput& input) const override;
    QString cellValues(const HeatmapCell& cell) const override;
    void onFigureShown(bool shown) override;
    QString viewName() const override { return QStringLiteral("compare"); }

  public:
    bool sharedScale() const;
    void setSharedScale(bool shared);
    QString hintText() const;  // the note above the panels, empty when none is shown

  private:
    QLabel* m_hint;
    QCheckBox* m_sharedScale;
};

}  // namespace qkv::ui
