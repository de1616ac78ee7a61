#include "ui/views/overview_view.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QVBoxLayout>

#include "ui/document/lab_document.h"
#include "ui/plot/head_figures.h"
#include "ui/support/setting.h"
#include "ui/views/cell_tooltip.h"
#include "ui/views/heatmap_widget.h"

namespace qkv::ui {
namespace {

const Setting<QString> kMetricSetting{QStringLiteral("overview/metric"),
                                      QStringLiteral("wqk-symmetry")};

}  // namespace

OverviewView::OverviewView(LabDocument& document, QWidget* parent)
    : DocumentView(document, parent) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 4, 0, 0);
    auto* row = new QHBoxLayout;
    row->setContentsMargins(8, 0, 8, 0);
    row->addWidget(new QLabel(tr("Colour by"), this));
    m_metric = new QComboBox(this);
    for (const HeadMetricInfo& info : headMetricInfos()) m_metric->addItem(info.title, info.key);
    const int saved = m_metric->findData(kMetricSetting.value());
    m_metric->setCurrentIndex(saved >= 0 ? saved : 0);
    row->addWidget(m_metric);
    m_help = new QLabel(this);
    m_help->setStyleSheet(QStringLiteral("color: palette(mid);"));
    row->addWidget(m_help, 1);
    layout->addLayout(row);
    m_heatmap = new HeatmapWidget(this);
    layout->addWidget(m_heatmap, 1);

    m_heatmap->setToolTipProvider([this](const HeatmapCell& cell) { return cellToolTip(cell); });
    connect(m_heatmap, &HeatmapWidget::cellClicked, this, [this](const HeatmapCell& cell) {
        this->document().setHead(cell.row, cell.col);
        emit headActivated(cell.row, cell.col);
    });
    connect(m_metric, &QComboBox::currentIndexChanged, this, &OverviewView::onMetricChosen);
    connectRefresh();
    connect(&document, &LabDocument::metricsChanged, this, &OverviewView::scheduleRefresh);
    connect(&document, &LabDocument::headChanged, this, &OverviewView::scheduleRefresh);
    onMetricChosen();
}

HeadMetric OverviewView::metric() const {
    return headMetricInfos().at(std::max(m_metric->currentIndex(), 0)).metric;
}

void OverviewView::setMetric(HeadMetric metric) {
    m_metric->setCurrentIndex(m_metric->findData(headMetricInfo(metric).key));
}

void OverviewView::onMetricChosen() {
    const HeadMetricInfo& info = headMetricInfo(metric());
    m_help->setText(info.help);
    kMetricSetting.setValue(info.key);
    scheduleRefresh();
}

void OverviewView::refresh() {
    const LabDocument& d = document();
    // Weight metrics need no sentence, but they come with the sentence's computation.
    if (const QString why = placeholder(); !why.isEmpty()) {
        m_heatmap->showPlaceholder(why);
        return;
    }
    const auto metrics = d.metrics();
    if (!metrics || metrics->kind != d.attentionKind()) {
        m_heatmap->showPlaceholder(tr("Computing the metrics of every head…"));
        return;
    }
    const QString kind = attentionKindTitle(metrics->kind);
    const QString subtitle = QString::fromStdString(d.model()->name()) + QStringLiteral(" · ") +
                             (kind.isEmpty() ? QString() : kind + QStringLiteral(" · ")) +
                             configTitle(metrics->config);
    m_heatmap->showFigure(
        overviewFigure(*metrics->metrics, metric(), subtitle, d.shownArchitecture().headDim),
        d.colorScheme(), std::make_pair(d.layer(), d.head()));
}

QString OverviewView::cellToolTip(const HeatmapCell& cell) const {
    const auto metrics = document().metrics();
    if (!metrics) return {};
    const ModelMetrics& m = *metrics->metrics;
    const HeadMetrics& head = m.layers.at(cell.row).heads.at(cell.col);
    QStringList lines{QStringLiteral("<b>Layer %1 · Head %2</b>").arg(cell.row).arg(cell.col)};
    for (const HeadMetricInfo& info : headMetricInfos()) {
        const auto v = headMetricValue(head, info.metric);
        const QString text = !v ? tr("not computed (head not captured)")
                             : info.metric == HeadMetric::WqkRank ? QString::number(*v)
                                                                  : formatNumber(*v);
        const bool current = info.metric == metric();
        lines << (current ? QStringLiteral("<b>%1: %2</b>") : QStringLiteral("%1: %2"))
                     .arg(info.title.toHtmlEscaped(), text);
    }
    lines << tr("layer W_QK symmetry: %1").arg(formatNumber(m.layers.at(cell.row).wqkSymmetry));
    lines << tr("<i>click to open this head</i>");
    return lines.join(QStringLiteral("<br>"));
}

}  // namespace qkv::ui
