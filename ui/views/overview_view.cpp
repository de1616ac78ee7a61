#include "ui/views/overview_view.h"

#include <qcustomplot.h>

#include <QCheckBox>
#include <QComboBox>
#include <QHBoxLayout>
#include <QInputDialog>
#include <QLabel>
#include <QListView>
#include <QMenu>
#include <QStackedWidget>
#include <QVBoxLayout>
#include <tuple>

#include "core/analysis/hidden_keys.h"
#include "core/analysis/model_survey.h"
#include "ui/document/lab_document.h"
#include "ui/export/document_provenance.h"
#include "ui/export/plot_provenance.h"
#include "ui/plot/head_figures.h"
#include "ui/support/setting.h"
#include "ui/views/cell_tooltip.h"
#include "ui/views/flow_layout.h"
#include "ui/views/heatmap_widget.h"
#include "ui/views/thumbnail_grid.h"

namespace qkv::ui {
namespace {

const Setting<QString> kMetricSetting{QStringLiteral("overview/metric"),
                                      QStringLiteral("wqk-symmetry")};

}  // namespace

OverviewView::OverviewView(LabDocument& document, QWidget* parent)
    : DocumentView(document, parent) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 4, 0, 0);
    m_metric = new QComboBox(this);
    for (const HeadMetricInfo& info : headMetricInfos()) m_metric->addItem(info.title, info.key);
    // A comparison's colouring is not restored: no comparison is open at start-up.
    const int saved = m_metric->findData(kMetricSetting.value());
    const bool restorable = saved >= 0 && !isComparisonMetric(headMetricInfos().at(saved).metric);
    m_metric->setCurrentIndex(restorable ? saved : 0);
    // Long metric names are shown whole in the list, not by a wide box.
    m_metric->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_metric->setMinimumContentsLength(22);
    const ControlRow controls = addControlRow(layout, tr("Colour by"), m_metric);
    m_help = controls.hint;
    FlowLayout* row = controls.row;
    m_thumbnailToggle = new QCheckBox(tr("&Thumbnails"), this);
    m_thumbnailToggle->setToolTip(
        tr("Every head's attention over the sentence as a small picture (Ctrl+T)"));
    row->addWidget(m_thumbnailToggle);
    m_summary = new QLabel(this);
    m_summary->setContentsMargins(8, 0, 8, 0);
    m_summary->setWordWrap(true);  // a comparison names both models: never widen the window
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(m_summary);
    m_pages = new QStackedWidget(this);
    m_heatmap = new HeatmapWidget(m_pages);
    m_thumbnails = new ThumbnailGrid(m_pages);
    m_pages->addWidget(m_heatmap);
    m_pages->addWidget(m_thumbnails);
    layout->addWidget(m_pages, 1);
    connect(m_thumbnails, &ThumbnailGrid::headClicked, this, [this](int layer, int head) {
        this->document().setHead(layer, head);
        emit headActivated(layer, head);
    });
    connect(m_thumbnailToggle, &QCheckBox::toggled, this, [this](bool shown) {
        m_metric->setEnabled(!shown);
        m_pages->setCurrentWidget(shown ? static_cast<QWidget*>(m_thumbnails) : m_heatmap);
        scheduleRefresh();
        emit thumbnailsToggled(shown);
    });

    m_heatmap->setToolTipProvider([this](const HeatmapCell& cell) { return cellToolTip(cell); });
    connect(m_heatmap, &HeatmapWidget::cellClicked, this, [this](const HeatmapCell& cell) {
        this->document().setHead(cell.row, cell.col);
        emit headActivated(cell.row, cell.col);
    });
    m_heatmap->plot()->setContextMenuPolicy(Qt::CustomContextMenu);
    connect(m_heatmap->plot(), &QWidget::customContextMenuRequested, this,
            &OverviewView::showCellMenu);
    connect(m_metric, &QComboBox::currentIndexChanged, this, &OverviewView::onMetricChosen);
    connectRefresh();
    connect(&document, &LabDocument::annotationsChanged, this, &OverviewView::scheduleRefresh);
    connect(&document, &LabDocument::metricsChanged, this, &OverviewView::scheduleRefresh);
    connect(&document, &LabDocument::comparisonChanged, this, &OverviewView::offerMetrics);
    connect(&document, &LabDocument::headChanged, this, &OverviewView::scheduleRefresh);
    onMetricChosen();
}

HeadMetric OverviewView::shownMetric() const {
    return headMetricInfos().at(std::max(m_metric->currentIndex(), 0)).metric;
}

void OverviewView::setShownMetric(HeadMetric metric) {
    m_metric->setCurrentIndex(m_metric->findData(headMetricInfo(metric).key));
}

void OverviewView::onMetricChosen() {
    const HeadMetricInfo& info = headMetricInfo(shownMetric());
    m_help->setText(info.help);
    kMetricSetting.setValue(info.key);
    scheduleRefresh();
}

bool OverviewView::showsThumbnails() const { return m_thumbnailToggle->isChecked(); }
void OverviewView::setShowsThumbnails(bool shown) { m_thumbnailToggle->setChecked(shown); }

void OverviewView::refresh() {
    const LabDocument& d = document();
    if (showsThumbnails()) return refreshThumbnails();
    m_summary->clear();
    const auto metrics = d.metrics();
    const bool current =
        metrics && metrics->kind == d.attentionKind() && metrics->pairing == d.gqaPairing();
    // The weights' own metrics need no sentence: they show before any text is typed, and for a
    // model without a tokenizer before any ids are.
    QString why = placeholder();
    if (current && d.model() && !d.isLoading() && !readsTheSentence(shownMetric())) why.clear();
    if (!why.isEmpty()) {
        m_heatmap->showPlaceholder(why);
        return;
    }
    if (!current) {
        m_heatmap->showPlaceholder(tr("Computing the metrics of every head…"));
        return;
    }
    m_summary->setText(surveyLine(*metrics->metrics));
    offerMetrics();
    const QString kind = attentionKindTitle(metrics->kind);
    const QString subtitle =
        QString::fromStdString(d.model()->name()) + QStringLiteral(" · ") +
        (kind.isEmpty() ? QString() : kind + QStringLiteral(" · ")) + configTitle(metrics->config) +
        (metrics->pairing == GqaPairing::Modulo ? tr(" · GQA pairing h mod n_kv (as published)")
                                                : QString());
    const Architecture c = d.shownArchitecture();
    FigureSpec spec = overviewFigure(
        *metrics->metrics, shownMetric(),
        subtitle + (isComparisonMetric(shownMetric()) ? tr(" · against ") + d.comparisonName()
                                                      : QString()),
        c.headDim);
    // Where layers differ (local / chunked / sparse / global, NoPE; a hybrid's kinds), each row
    // says which it is.
    QStringList& rows = spec.panels.at(0).data.rowLabels;
    const bool hybrid = c.isHybrid();
    if (metrics->kind == AttentionKind::Self && !c.describeLayer(0).empty())
        for (int l = 0; l < rows.size() && l < c.layers; ++l)
            rows[l] += hybrid && c.mixerOf(l) != Mixer::Attention
                           ? QStringLiteral(" ") + QString::fromStdString(c.kindName(l))
                           : (c.windowOf(l) > 0        ? tr(" local")
                              : c.chunkOf(l) > 0       ? tr(" chunked")
                              : c.keyIndexer.present() ? tr(" sparse")
                                                       : tr(" global")) +
                                 (c.positions == Positions::Rotary && !c.rotaryOf(l) ? tr(" NoPE")
                                                                                     : QString()) +
                                 (c.kindOf(l).valueIsKey ? tr(" V=K") : QString());
    for (const auto& [key, name] : d.annotations())
        if (key.kind == metrics->kind)
            spec.panels.at(0).notes.push_back({key.layer, key.head, name});
    m_heatmap->showFigure(spec, d.colorScheme(), std::make_pair(d.layer(), d.head()));
    FigureProvenance provenance = documentProvenance(d, QStringLiteral("overview"), false);
    provenance.mode.reset();  // it draws a metric per head, not the heatmap mode
    setPlotProvenance(m_heatmap->plot(), provenance);
}

void OverviewView::refreshThumbnails() {
    const LabDocument& d = document();
    m_thumbnails->clear();
    QString why = placeholder();
    if (why.isEmpty() && !d.snapshot()->capturesAll())
        why =
            tr("This sentence is too long to keep every head's attention, which the "
               "thumbnails draw: shorten it, or see one head at a time in the Head tab.");
    if (!why.isEmpty()) {
        m_summary->setText(why);
        return;
    }
    m_summary->setText(tr("Every head's attention (rows: queries, columns: keys), "
                          "%1; click a head to open it.")
                           .arg(d.snapshot()->trace->tokens() > ThumbnailGrid::kMaxPixels
                                    ? tr("%1 pixels a side, each the strongest cell it covers")
                                          .arg(ThumbnailGrid::kMaxPixels)
                                    : tr("a cell per token pair")));
    m_thumbnails->setContent(*d.snapshot()->trace, d.colorScheme(), {d.layer(), d.head()});
}

void OverviewView::showCellMenu(const QPoint& position) {
    const auto cell =
        m_heatmap->isShowingFigure() ? m_heatmap->figure().cellAt(position) : std::nullopt;
    if (!cell) return;
    LabDocument& d = document();
    const QString current = d.annotation(cell->row, cell->col);
    QMenu menu(this);
    menu.addAction(
        current.isEmpty() ? tr("Name Layer %1 · Head %2…").arg(cell->row).arg(cell->col)
                          : tr("Rename Layer %1 · Head %2…").arg(cell->row).arg(cell->col),
        this, [this, &d, cell, current] {
            bool ok = false;
            const QString name =
                QInputDialog::getText(this, tr("Name a head"),
                                      tr("Layer %1 · Head %2 (e.g. previous token, induction):")
                                          .arg(cell->row)
                                          .arg(cell->col),
                                      QLineEdit::Normal, current, &ok);
            if (ok) d.setAnnotation(cell->row, cell->col, name);
        });
    if (!current.isEmpty())
        menu.addAction(tr("Remove the Name"), this,
                       [&d, cell] { d.setAnnotation(cell->row, cell->col, QString()); });
    menu.exec(m_heatmap->plot()->mapToGlobal(position));
}

QString OverviewView::surveyLine(const ModelMetrics& m) const {
    const ModelSurvey survey = surveyOf(m);
    QString line = tr("Medians over layers (as <tt>qkvlab-cli survey</tt>): W_QK symmetry "
                      "<b>%1</b>, directionality <b>%2</b>")
                       .arg(formatNumber(survey.medianLayerSymmetry()),
                            formatNumber(survey.medianLayerDirectionality()));
    if (const auto copying = survey.medianCopying())
        line += tr(" · median OV copying score of the heads <b>%1</b>").arg(formatNumber(*copying));
    std::optional<std::tuple<double, int, int>> largest;  // change, layer, head
    for (size_t l = 0; l < m.layers.size(); ++l)
        for (size_t h = 0; h < m.layers[l].heads.size(); ++h)
            if (const auto change = m.layers[l].heads[h].attentionChange;
                change && (!largest || *change > std::get<0>(*largest)))
                largest = {*change, static_cast<int>(l), static_cast<int>(h)};
    if (largest && !document().comparisonName().isEmpty())
        line += tr(" · against <b>%1</b>: largest attention change <b>%2</b> (layer %3, head %4)")
                    .arg(document().comparisonName().toHtmlEscaped(),
                         formatNumber(std::get<0>(*largest)))
                    .arg(std::get<1>(*largest))
                    .arg(std::get<2>(*largest));
    const Architecture& c = document().model()->architecture();
    if (c.valueIsKeyLayers() > 0)
        line += tr(" · W_V = W_K by design in <b>%1</b> of %2 layers (V=K)")
                    .arg(c.valueIsKeyLayers())
                    .arg(c.layers);
    return line;
}

bool OverviewView::isOffered(HeadMetric metric) const {
    const LabDocument& d = document();
    if (metric == HeadMetric::SinkShare)
        return d.model() && d.model()->architecture().attentionSinks;
    if (metric == HeadMetric::IndexerAgreement)
        return d.model() && d.model()->architecture().keyIndexer.present();
    if (metric == HeadMetric::DroppedMass)
        return d.model() && someLayerHidesKeys(d.model()->architecture());
    if (isComparisonMetric(metric)) return !d.comparisonName().isEmpty();
    return true;
}

void OverviewView::offerMetrics() {
    auto* list = qobject_cast<QListView*>(m_metric->view());
    for (const HeadMetricInfo& info : headMetricInfos()) {
        const int row = m_metric->findData(info.key);
        const bool offered = isOffered(info.metric);
        if (list) list->setRowHidden(row, !offered);
        if (!offered && m_metric->currentIndex() == row) m_metric->setCurrentIndex(0);
    }
}

QString OverviewView::cellToolTip(const HeatmapCell& cell) const {
    const auto metrics = document().metrics();
    if (!metrics) return {};
    const ModelMetrics& m = *metrics->metrics;
    const HeadMetrics& head = m.layers.at(cell.row).heads.at(cell.col);
    QStringList lines{QStringLiteral("<b>Layer %1 · Head %2</b>").arg(cell.row).arg(cell.col)};
    if (const QString name = document().annotation(cell.row, cell.col); !name.isEmpty())
        lines.back() += QStringLiteral(" — <i>%1</i>").arg(name.toHtmlEscaped());
    if (const QString kind = document().shownLayerKind(cell.row); !kind.isEmpty())
        lines << kind.toHtmlEscaped();
    for (const HeadMetricInfo& info : headMetricInfos()) {
        if (!isOffered(info.metric)) continue;
        const auto v = headMetricValue(head, info.metric);
        const QString absent = readsTheSentence(info.metric)
                                   ? tr("not computed (head not captured)")
                                   : tr("none (the model has no output head)");
        const QString text =
            !v ? absent
            : info.metric == HeadMetric::WqkRank || info.metric == HeadMetric::OvRank
                ? QString::number(*v)
                : formatNumber(*v);
        const bool current = info.metric == shownMetric();
        lines << (current ? QStringLiteral("<b>%1: %2</b>") : QStringLiteral("%1: %2"))
                     .arg(info.title.toHtmlEscaped(), text);
    }
    const LayerMetrics& layer = m.layers.at(cell.row);
    lines << tr("layer W_QK symmetry: %1, directionality: %2")
                 .arg(formatNumber(layer.wqkSymmetry), formatNumber(layer.wqkDirectionality));
    lines << tr("<i>click to open this head; right-click to name it</i>");
    return lines.join(QStringLiteral("<br>"));
}

}  // namespace qkv::ui
