#pragma once
// Base of the Head and Compare tabs: a figure of the document's head (layer, head) in the chosen
// mode from the latest result, redrawn when the head, the mode or the selected pair changes.
// Hovering a cell names its token pair; a click selects the pair for the weight panel and chips.
// The heatmap zooms and pans; the zoom stays while the head, mode or selection changes.
#include "ui/plot/head_figures.h"
#include "ui/views/document_view.h"

class QVBoxLayout;

namespace qkv::ui {

class HeatmapWidget;
struct HeatmapCell;

class HeadFigureView : public DocumentView {
    Q_OBJECT
  public:
    HeatmapWidget* heatmap() const { return m_heatmap; }

  protected:
    HeadFigureView(LabDocument& document, QWidget* parent);

    void refresh() override;
    virtual FigureSpec buildFigure(const HeadFigureInput& input) const = 0;
    // The cell's values (rich text) below the token pair in its tooltip.
    virtual QString cellValues(const HeatmapCell& cell) const = 0;
    // What an exported figure's provenance calls the view.
    virtual QString viewName() const { return QStringLiteral("head"); }
    // Whether the figure (rather than a placeholder) is on screen after a refresh.
    virtual void onFigureShown(bool shown) {}
    // Whether the view draws a short convolution's band (the Head view) rather than a
    // placeholder.
    virtual bool drawsBand() const { return false; }
    QVBoxLayout* layout() const { return m_layout; }

  private:
    void refreshMarks();  // the selected pair or the pinned token changed
    QString cellToolTip(const HeatmapCell& cell) const;

    QVBoxLayout* m_layout;
    HeatmapWidget* m_heatmap;
};

}  // namespace qkv::ui
