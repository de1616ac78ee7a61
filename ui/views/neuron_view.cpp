#include "ui/views/neuron_view.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QVBoxLayout>

#include "ui/document/lab_document.h"
#include "ui/export/document_provenance.h"
#include "ui/export/plot_provenance.h"
#include "ui/plot/head_figures.h"
#include "ui/plot/neuron_figure.h"
#include "ui/views/cell_tooltip.h"
#include "ui/views/heatmap_widget.h"

namespace qkv::ui {

NeuronView::NeuronView(LabDocument& document, QWidget* parent) : DocumentView(document, parent) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 4, 0, 0);
    m_query = new QComboBox(this);
    m_query->setMinimumContentsLength(12);
    m_query->setToolTip(
        tr("The attending token whose heatmap row is taken apart (a click in "
           "the Head view picks it too)"));
    m_help = addControlRow(layout, tr("Query token"), m_query).hint;
    m_help->setText(
        tr("Each score is the sum of the products q∘k over the head's dimensions: "
           "the row shows which dimensions make it."));
    m_heatmap = new HeatmapWidget(this);
    layout->addWidget(m_heatmap, 1);
    m_heatmap->setToolTipProvider([this](const HeatmapCell& cell) { return cellToolTip(cell); });
    connect(m_query, &QComboBox::activated, this, [this] { scheduleRefresh(); });
    connectRefresh();
    connect(&document, &LabDocument::headChanged, this, &NeuronView::scheduleRefresh);
    connect(&document, &LabDocument::tokenPairChanged, this, [this] {
        if (const auto pair = this->document().tokenPair(); pair && pair->query < m_query->count())
            m_query->setCurrentIndex(pair->query);
        scheduleRefresh();
    });
}

int NeuronView::queryToken() const {
    return m_heatmap->isShowingFigure() ? m_query->currentIndex() : -1;
}

void NeuronView::fillQueryChoices(const QStringList& labels) {
    QStringList current;
    for (int i = 0; i < m_query->count(); ++i) current << m_query->itemText(i);
    if (current == labels) return;
    const int previous = m_query->currentIndex();
    m_query->clear();
    m_query->addItems(labels);
    // A new sentence keeps the chosen position where it still exists, else takes the last token.
    m_query->setCurrentIndex(previous >= 0 && previous < labels.size() ? previous
                                                                       : labels.size() - 1);
}

void NeuronView::refresh() {
    const LabDocument& d = document();
    QString why = headPlaceholder();
    if (why.isEmpty() && !d.snapshot()->includes(d.layer(), d.head()))
        why = tr("Computing layer %1, head %2…").arg(d.layer()).arg(d.head());
    if (!why.isEmpty()) {
        m_heatmap->showPlaceholder(why);
        return;
    }
    const TraceSnapshot& snapshot = *d.snapshot();
    fillQueryChoices(snapshot.labels());
    const int query = std::max(m_query->currentIndex(), 0);
    NeuronFigureInput input;
    input.scale = scoreScale(d.shownArchitecture().atLayer(d.layer()), snapshot.config);
    input.row = neuronRow(*snapshot.trace, d.layer(), d.head(), query, input.scale);
    input.norms = headOutputNorms(*d.model(), *snapshot.trace, d.layer(), d.head(), snapshot.kind);
    input.query = query;
    input.queryLabel = snapshot.labels().at(query);
    input.keyLabels = snapshot.keyLabels();
    const QString kind = attentionKindTitle(snapshot.kind);
    input.title = (kind.isEmpty() ? QString() : kind + QStringLiteral(" · ")) +
                  tr("Layer %1 · Head %2 · %3 · the row of “%4”")
                      .arg(d.layer())
                      .arg(d.head())
                      .arg(configTitle(snapshot.config), input.queryLabel);
    m_heatmap->showFigure(neuronFigure(input), d.colorScheme());
    FigureProvenance provenance = documentProvenance(d, QStringLiteral("neurons"), true);
    provenance.mode.reset();  // it decomposes one attention row, whatever the mode
    setPlotProvenance(m_heatmap->plot(), provenance);
}

QString NeuronView::cellToolTip(const HeatmapCell& cell) const {
    const FigureSpec& spec = m_heatmap->figure().spec();
    if (cell.panel >= static_cast<int>(spec.panels.size())) return {};
    const HeatmapPanel& panel = spec.panels[cell.panel];
    const HeatmapData& data = panel.data;
    const double value = data.at(cell.row, cell.col);
    if (!std::isfinite(value)) return {};
    QString where = data.rowLabels.value(cell.row).toHtmlEscaped();
    if (data.cols > 1) where += tr(", dimension %1").arg(cell.col);
    return QStringLiteral("<b>%1</b><br>%2: %3")
        .arg(panel.title.toHtmlEscaped(), where, formatNumber(value));
}

}  // namespace qkv::ui
