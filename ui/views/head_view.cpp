#include "ui/views/head_view.h"

#include <QCheckBox>
#include <QLineEdit>
#include <QVBoxLayout>

#include "core/analysis/hidden_keys.h"
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
    const ControlRow row = addControlRow(top, tr("Name"), m_name);
    row.hint->setText(tr("Enter to apply"));
    m_hidden = new QCheckBox(tr("What the &mask hides"), this);
    m_hidden->setToolTip(
        tr("On a layer with a sliding window or chunks: beside the attention, the dense "
           "counterfactual — the same scores with the mask lifted, not what the model computed — "
           "and each query's dropped mass, what it would have put on the hidden keys"));
    row.row->addWidget(m_hidden);
    layout()->insertLayout(0, top);
    connect(m_hidden, &QCheckBox::toggled, this, &HeadView::scheduleRefresh);
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

bool HeadView::showsHidden() const { return m_hidden->isChecked() && hidesKeysHere(); }

bool HeadView::hidesKeysHere() const {
    const LabDocument& d = document();
    return d.model() &&
           (hidesKeys(d.shownMask(d.layer())) || hidesKeys(d.model()->architecture(), d.layer()));
}

FigureSpec HeadView::buildFigure(const HeadFigureInput& input) const {
    m_hidden->setEnabled(hidesKeysHere());
    HeadFigureInput shown = input;
    shown.showHidden = showsHidden();
    return headFigure(shown);
}

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
    if (cell.panel > 0 && showsHidden()) {  // the dense counterfactual (headFigure's order)
        const double value = heatmap()->figure().shownValue({cell.panel, cell.row, cell.col});
        const KeyMask mask = d.shownMask(d.layer());
        if (KeyMask{mask.causal}.hides(cell.row, cell.col))
            return tr("a later token: hidden with or without the mask");
        const bool hidden = mask.hides(cell.row, cell.col);
        return tr("counterfactual A′<sub>ij</sub> = %1, the mask lifted (%2)")
            .arg(formatNumber(value))
            .arg(hidden ? tr("a key the mask hides: its mass is dropped")
                        : tr("a key the mask shows"));
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
