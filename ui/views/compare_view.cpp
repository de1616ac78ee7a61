#include "ui/views/compare_view.h"

#include <QLabel>
#include <QVBoxLayout>
#include <cmath>

#include "ui/document/lab_document.h"
#include "ui/plot/head_figures.h"
#include "ui/views/cell_tooltip.h"
#include "ui/views/heatmap_widget.h"

namespace qkv::ui {

CompareView::CompareView(LabDocument& document, QWidget* parent) : DocumentView(document, parent) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    m_hint = new QLabel(tr("The configuration is <b>learned</b>, so both panels agree: pick "
                           "another configuration (e.g. shared-qk) to see what tying changes."),
                        this);
    m_hint->setWordWrap(true);
    m_hint->setContentsMargins(8, 4, 8, 0);
    layout->addWidget(m_hint);
    m_heatmap = new HeatmapWidget(this);
    layout->addWidget(m_heatmap, 1);
    m_heatmap->setToolTipProvider([this](const HeatmapCell& cell) { return cellToolTip(cell); });
    connect(m_heatmap, &HeatmapWidget::cellClicked, this, [this](const HeatmapCell& cell) {
        this->document().setTokenPair(TokenPair{cell.row, cell.col});
    });
    connectRefresh();
    connect(&document, &LabDocument::modeChanged, this, &CompareView::scheduleRefresh);
    connect(&document, &LabDocument::headChanged, this, &CompareView::scheduleRefresh);
    connect(&document, &LabDocument::tokenPairChanged, this, &CompareView::scheduleRefresh);
}

void CompareView::refresh() {
    const LabDocument& d = document();
    const QString why = placeholder();
    m_hint->setVisible(why.isEmpty() && d.snapshot()->config == AttentionConfig{});
    if (!why.isEmpty()) {
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
    input.learned = s.learned.get();
    input.labels = s.labels();
    input.config = s.config;
    input.layer = d.layer();
    input.head = d.head();
    input.mode = d.mode();
    input.causal = d.model()->config().causal;
    m_heatmap->showFigure(compareFigure(input), d.colorScheme(), selectedCell(d));
}

QString CompareView::cellToolTip(const HeatmapCell& cell) const {
    const auto snapshot = document().snapshot();
    if (!snapshot) return {};
    const auto& spec = m_heatmap->figure().spec();
    QStringList lines{tokenPairHeading(*snapshot, cell.row, cell.col)};
    for (size_t i = 0; i < spec.panels.size(); ++i) {
        const double v = spec.panels[i].data.at(cell.row, cell.col);
        lines << QStringLiteral("%1: %2").arg(spec.panels[i].title.toHtmlEscaped(),
                                              std::isnan(v) ? tr("masked") : formatNumber(v));
    }
    return lines.join(QStringLiteral("<br>"));
}

}  // namespace qkv::ui
