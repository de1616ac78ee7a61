#include "ui/views/compare_view.h"

#include <QLabel>
#include <QVBoxLayout>
#include <cmath>

#include "ui/document/lab_document.h"
#include "ui/views/cell_tooltip.h"
#include "ui/views/heatmap_widget.h"

namespace qkv::ui {

CompareView::CompareView(LabDocument& document, QWidget* parent)
    : HeadFigureView(document, parent) {
    m_hint = new QLabel(tr("The configuration is <b>learned</b>, so both panels agree: pick "
                           "another configuration (e.g. shared-qk) to see what tying changes."),
                        this);
    m_hint->setWordWrap(true);
    m_hint->setContentsMargins(8, 4, 8, 0);
    m_hint->hide();
    layout()->insertWidget(0, m_hint);
}

FigureSpec CompareView::buildFigure(const HeadFigureInput& input) const {
    return compareFigure(input);
}

void CompareView::onFigureShown(bool shown) {
    m_hint->setVisible(shown && document().snapshot()->config == WConfiguration{});
}

QString CompareView::cellValues(const HeatmapCell& cell) const {
    const auto& spec = heatmap()->figure().spec();
    QStringList lines;
    for (const HeatmapPanel& panel : spec.panels) {
        const double v = panel.data.at(cell.row, cell.col);
        lines << QStringLiteral("%1: %2").arg(panel.title.toHtmlEscaped(),
                                              std::isnan(v) ? tr("masked") : formatNumber(v));
    }
    return lines.join(QStringLiteral("<br>"));
}

}  // namespace qkv::ui
