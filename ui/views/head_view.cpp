#include "ui/views/head_view.h"

#include <QLineEdit>
#include <QVBoxLayout>

#include "ui/document/lab_document.h"
#include "ui/views/cell_tooltip.h"
#include "ui/views/heatmap_widget.h"

namespace qkv::ui {

HeadView::HeadView(LabDocument& document, QWidget* parent) : HeadFigureView(document, parent) {
    m_name = new QLineEdit(this);
    m_name->setPlaceholderText(tr("e.g. previous token, induction"));
    m_name->setClearButtonEnabled(true);
    m_name->setMinimumWidth(220);
    m_name->setMaximumWidth(320);
    m_name->setToolTip(
        tr("A name for this head: shown in its title, on its Overview cell and "
           "in exported figures, and saved with the session"));
    auto* top = new QVBoxLayout;
    top->setContentsMargins(0, 4, 0, 0);
    addControlRow(top, tr("Name"), m_name).hint->setText(tr("Enter to apply"));
    layout()->insertLayout(0, top);
    connect(m_name, &QLineEdit::editingFinished, this, [this] {
        LabDocument& d = this->document();
        if (d.model()) d.setAnnotation(d.layer(), d.head(), m_name->text());
    });
    connect(&document, &LabDocument::headChanged, this, &HeadView::showCurrentName);
    connect(&document, &LabDocument::annotationsChanged, this, &HeadView::showCurrentName);
    connect(&document, &LabDocument::attentionKindChanged, this, &HeadView::showCurrentName);
}

void HeadView::showCurrentName() {
    const LabDocument& d = document();
    const QString name = d.annotation(d.layer(), d.head());
    if (m_name->text() != name) m_name->setText(name);
}

FigureSpec HeadView::buildFigure(const HeadFigureInput& input) const { return headFigure(input); }

QString HeadView::cellValues(const HeatmapCell& cell) const {
    const LabDocument& d = document();
    const AttentionTrace& trace = *d.snapshot()->trace;
    if (const RowMatrixXf& taps = trace.layers()[d.layer()].taps; taps.size() > 0) {
        const int offset = static_cast<int>(taps.cols()) - 1 - cell.col;
        return tr("channel %1 weighs token t−%2 by w = %3")
            .arg(cell.row)
            .arg(offset)
            .arg(formatNumber(taps(cell.row, cell.col)));
    }
    if (cell.panel > 0) {  // a Mamba-2 head beside Falcon-H1's attention (headFigure's order)
        const int m = d.head() + (cell.panel - 1) * trace.headCount(d.layer());
        const double value =
            trace.layers()[d.layer()].beside.at(0).probabilities.at(m)(cell.row, cell.col);
        return cell.col > cell.row
                   ? tr("M<sub>ij</sub> = 0 (a token sees only earlier ones)")
                   : tr("M<sub>ij</sub> = %1 (Mamba-2 head %2)").arg(formatNumber(value)).arg(m);
    }
    return headCellValues(trace, d.layer(), d.head(), cell.row, cell.col, d.shownMask(d.layer()));
}

}  // namespace qkv::ui
