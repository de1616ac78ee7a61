#include "ui/views/head_figure_view.h"

#include <QVBoxLayout>

#include "ui/document/lab_document.h"
#include "ui/export/document_provenance.h"
#include "ui/export/plot_provenance.h"
#include "ui/views/cell_tooltip.h"
#include "ui/views/heatmap_widget.h"

namespace qkv::ui {

HeadFigureView::HeadFigureView(LabDocument& document, QWidget* parent)
    : DocumentView(document, parent) {
    m_layout = new QVBoxLayout(this);
    m_layout->setContentsMargins(0, 0, 0, 0);
    m_heatmap = new HeatmapWidget(this);
    m_heatmap->setZoomable(true);  // a long sentence's head is read region by region
    m_layout->addWidget(m_heatmap, 1);
    m_heatmap->setToolTipProvider([this](const HeatmapCell& cell) { return cellToolTip(cell); });
    connect(m_heatmap, &HeatmapWidget::cellClicked, this, [this](const HeatmapCell& cell) {
        // A band's cell is a channel's tap, not a pair of tokens.
        if (!this->document().showsBand())
            this->document().setTokenPair(TokenPair{cell.row, cell.col});
    });
    connectRefresh();
    connect(&document, &LabDocument::modeChanged, this, &HeadFigureView::scheduleRefresh);
    connect(&document, &LabDocument::headChanged, this, &HeadFigureView::scheduleRefresh);
    connect(&document, &LabDocument::tokenPairChanged, this, &HeadFigureView::refreshMarks);
    connect(&document, &LabDocument::pinnedTokenChanged, this, &HeadFigureView::refreshMarks);
    connect(&document, &LabDocument::annotationsChanged, this, &HeadFigureView::scheduleRefresh);
}

void HeadFigureView::refresh() {
    const LabDocument& d = document();
    QString why = drawsBand() ? placeholder() : headPlaceholder();
    if (why.isEmpty() && !d.snapshot()->includes(d.layer(), d.head()))
        why = tr("Computing layer %1, head %2…").arg(d.layer()).arg(d.head());
    onFigureShown(why.isEmpty());
    if (!why.isEmpty()) {
        m_heatmap->showPlaceholder(why);
        return;
    }
    HeadFigureInput input =
        headFigureInput(*d.snapshot(), d.layer(), d.head(), d.mode(), d.shownMask(d.layer()));
    input.headName = d.annotation(d.layer(), d.head());
    input.layerKind = d.shownLayerKind(d.layer());
    // A band's rows are channels, not tokens: no token pair or pin to mark.
    const bool band = d.showsBand();
    const PinnedCell pin = band ? PinnedCell{} : d.pinnedCell();
    m_heatmap->showFigure(buildFigure(input), d.colorScheme(),
                          band ? std::nullopt : selectedCell(d), pin.row, pin.column);
    setPlotProvenance(m_heatmap->plot(), documentProvenance(d, viewName(), true));
}

// A shown figure is the document's latest (every other change redraws a visible view at once),
// so a click only moves the marks: no 4096 x 4096 matrix is rebuilt for it.
void HeadFigureView::refreshMarks() {
    if (!isVisible() || !m_heatmap->isShowingFigure()) return scheduleRefresh();
    const LabDocument& d = document();
    if (d.showsBand()) return;
    const PinnedCell pin = d.pinnedCell();
    m_heatmap->showMarks(selectedCell(d), pin.row, pin.column);
}

QString HeadFigureView::cellToolTip(const HeatmapCell& cell) const {
    const auto snapshot = document().snapshot();
    if (!snapshot) return {};
    if (document().showsBand()) return cellValues(cell);  // rows are channels, not tokens
    return tokenPairHeading(snapshot->tokens, snapshot->columnTokens(), cell.row, cell.col) +
           QStringLiteral("<br>") + cellValues(cell);
}

}  // namespace qkv::ui
