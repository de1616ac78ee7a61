#include "ui/views/head_view.h"

#include <QVBoxLayout>

#include "ui/document/lab_document.h"
#include "ui/plot/head_figures.h"
#include "ui/views/cell_tooltip.h"
#include "ui/views/heatmap_widget.h"

namespace qkv::ui {

HeadView::HeadView(LabDocument& document, QWidget* parent) : DocumentView(document, parent) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    m_heatmap = new HeatmapWidget(this);
    layout->addWidget(m_heatmap);
    m_heatmap->setToolTipProvider([this](const HeatmapCell& cell) { return cellToolTip(cell); });
    connect(m_heatmap, &HeatmapWidget::cellClicked, this, &HeadView::onCellClicked);

    connectRefresh();
    connect(&document, &LabDocument::modeChanged, this, &HeadView::scheduleRefresh);
    connect(&document, &LabDocument::headChanged, this, &HeadView::scheduleRefresh);
    connect(&document, &LabDocument::tokenPairChanged, this, &HeadView::scheduleRefresh);
}

void HeadView::refresh() {
    const LabDocument& d = document();
    if (const QString why = placeholder(); !why.isEmpty()) {
        m_heatmap->showPlaceholder(why);
        return;
    }
    const TraceSnapshot& s = *d.snapshot();
    if (!s.includes(d.layer(), d.head())) {
        m_heatmap->showPlaceholder(tr("Computing layer %1, head %2…").arg(d.layer()).arg(d.head()));
        return;
    }
    HeadFigureInput input;
    input.trace = s.trace.get();
    input.labels = s.labels();
    input.config = s.config;
    input.layer = d.layer();
    input.head = d.head();
    input.mode = d.mode();
    input.causal = d.model()->config().causal;
    m_heatmap->showFigure(headFigure(input), d.colorScheme(), selectedCell(d));
}

QString HeadView::cellToolTip(const HeatmapCell& cell) const {
    const auto snapshot = document().snapshot();
    if (!snapshot) return {};
    return tokenPairHeading(*snapshot, cell.row, cell.col) + QStringLiteral("<br>") +
           headCellValues(*snapshot->trace, document().layer(), document().head(), cell.row,
                          cell.col, document().model()->config().causal);
}

void HeadView::onCellClicked(const HeatmapCell& cell) {
    document().setTokenPair(TokenPair{cell.row, cell.col});
}

}  // namespace qkv::ui
