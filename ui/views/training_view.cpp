#include "ui/views/training_view.h"

#include <qcustomplot.h>

#include <QDir>
#include <QFileInfo>
#include <QLabel>
#include <QPushButton>
#include <QSplitter>
#include <QStackedWidget>
#include <QVBoxLayout>

#include "ui/document/lab_document.h"
#include "ui/plot/loss_plot.h"
#include "ui/plot/variant_figure.h"
#include "ui/support/model_locator.h"
#include "ui/support/wrapping_label.h"
#include "ui/training/training_lab.h"
#include "ui/views/cell_tooltip.h"
#include "ui/views/experiment_view.h"
#include "ui/views/heatmap_widget.h"
#include "ui/views/training_table.h"

namespace qkv::ui {
namespace {

enum Page { EmptyPage, LabPage, ExperimentPage };

}  // namespace

TrainingView::TrainingView(LabDocument& document, QWidget* parent)
    : DocumentView(document, parent), m_lab(std::make_unique<TrainingLab>()) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    m_pages = new QStackedWidget(this);
    m_pages->addWidget(buildEmptyPage());
    m_pages->addWidget(buildLabPage());
    m_experiment = new ExperimentView(m_pages);
    connect(m_experiment, &ExperimentView::closeRequested, this, &TrainingView::closeExperiment);
    m_pages->addWidget(m_experiment);
    layout->addWidget(m_pages);

    // Queued: the lab reports from inside refresh() (setModelFolder reads the logs at once).
    connect(m_lab.get(), &TrainingLab::variantsChanged, this, [this] { m_variantsDirty = true; });
    connect(m_lab.get(), &TrainingLab::variantsChanged, this, &TrainingView::scheduleRefresh,
            Qt::QueuedConnection);
    connect(m_lab.get(), &TrainingLab::attentionChanged, this, &TrainingView::scheduleRefresh,
            Qt::QueuedConnection);
    connectRefresh();
    connect(&document, &LabDocument::textChanged, this, &TrainingView::scheduleRefresh);
    connect(&document, &LabDocument::headChanged, this, &TrainingView::scheduleRefresh);
    connect(&document, &LabDocument::modeChanged, this, &TrainingView::scheduleRefresh);
}

TrainingView::~TrainingView() = default;

QWidget* TrainingView::buildEmptyPage() {
    auto* page = new QWidget(this);
    auto* layout = new QVBoxLayout(page);
    layout->addStretch(1);
    m_emptyText = wrappingLabel(page);
    m_emptyText->setAlignment(Qt::AlignCenter);
    m_emptyText->setMaximumWidth(720);
    m_emptyText->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(m_emptyText, 0, Qt::AlignHCenter);
    m_openExample = new QPushButton(page);
    m_openExample->setStyleSheet(QStringLiteral("padding: 6px 16px;"));
    connect(m_openExample, &QPushButton::clicked, this,
            [this] { emit openModelRequested(m_openExample->property("folder").toString()); });
    layout->addWidget(m_openExample, 0, Qt::AlignHCenter);
    layout->addStretch(2);
    return page;
}

QWidget* TrainingView::buildLabPage() {
    auto* page = new QWidget(this);
    auto* layout = new QVBoxLayout(page);
    layout->setContentsMargins(8, 4, 8, 0);
    m_banner = wrappingLabel(page);
    layout->addWidget(m_banner);

    auto* split = new QSplitter(Qt::Horizontal, page);
    auto* left = new QSplitter(Qt::Vertical, split);
    m_losses = new QCustomPlot(left);
    m_losses->setMinimumSize(140, 100);
    m_accuracy = new QCustomPlot(left);
    m_accuracy->setMinimumSize(140, 80);
    m_accuracy->hide();
    m_table = new TrainingTable(left);
    left->addWidget(m_losses);
    left->addWidget(m_accuracy);
    left->addWidget(m_table);
    left->setStretchFactor(0, 3);
    left->setStretchFactor(1, 2);
    left->setStretchFactor(2, 1);

    auto* right = new QWidget(split);
    auto* rightLayout = new QVBoxLayout(right);
    rightLayout->setContentsMargins(0, 0, 0, 0);
    m_heatmap = new HeatmapWidget(right);
    m_heatmap->setToolTipProvider([this](const HeatmapCell& cell) { return cellToolTip(cell); });
    rightLayout->addWidget(m_heatmap, 1);
    m_notice = wrappingLabel(right);
    m_notice->setStyleSheet(QStringLiteral("color: #b35900;"));
    m_notice->hide();
    rightLayout->addWidget(m_notice);
    split->addWidget(left);
    split->addWidget(right);
    split->setStretchFactor(0, 4);
    split->setStretchFactor(1, 5);
    layout->addWidget(split, 1);
    return page;
}

bool TrainingView::isShowingEmptyState() const { return m_pages->currentIndex() == EmptyPage; }

QString TrainingView::emptyStateText() const {
    return isShowingEmptyState() ? m_emptyText->text() : QString();
}

QString TrainingView::noticeText() const {
    return m_notice->isVisible() ? m_notice->text() : QString();
}

void TrainingView::showExperiment(ExperimentFolder experiment) {
    m_experiment->setExperiment(std::move(experiment));
    m_experimentOpen = true;
    m_pages->setCurrentIndex(ExperimentPage);
    m_lab->cancel();  // the experiment has no weights: no attention to compute
}

void TrainingView::closeExperiment() {
    if (!m_experimentOpen) return;
    m_experimentOpen = false;
    m_variantsDirty = true;  // the plots were not kept up to date meanwhile
    scheduleRefresh();
    emit experimentClosed();
}

void TrainingView::refresh() {
    const LabDocument& d = document();
    m_lab->setModelFolder(d.modelFolder());
    if (m_experimentOpen) {
        m_pages->setCurrentIndex(ExperimentPage);
        return;
    }
    if (m_lab->isEmpty()) {
        showEmptyState();
        return;
    }
    m_pages->setCurrentIndex(LabPage);
    if (m_variantsDirty) refreshVariants();
    refreshAttention();
}

void TrainingView::showEmptyState() {
    m_pages->setCurrentIndex(EmptyPage);
    const QString name =
        document().model() ? QString::fromStdString(document().model()->name()) : tr("This model");
    m_emptyText->setText(
        tr("<h3>No training runs to compare</h3>"
           "<p><b>%1</b> has no training log and no trained variants beside it. The Training "
           "tab compares one model trained four times, once per tying: folders "
           "<i>NAME</i>-learned, -shared-qk, -tied-kv and -single-w side by side, each with the "
           "training_log.json that <code>qkvlab-cli train</code> writes.</p>"
           "<p>Train variants with <code>qkvlab-cli train --config shared-qk --out "
           "runs/mine-shared-qk</code> (and likewise for the other tyings; see "
           "docs/training.md), or open a shipped example.</p>")
            .arg(name.toHtmlEscaped()));
    const auto example = defaultModel();
    m_openExample->setVisible(example.has_value());
    if (example) {
        m_openExample->setText(tr("Open the shipped example %1").arg(QDir(*example).dirName()));
        m_openExample->setProperty("folder", *example);
    }
}

void TrainingView::refreshVariants() {
    m_variantsDirty = false;
    const auto& variants = m_lab->variants();
    drawLossCurves(m_losses, variants);
    m_losses->replot();
    m_accuracy->setVisible(drawAccuracyCurves(m_accuracy, variants));
    m_accuracy->replot();
    m_table->setVariants(variants);

    QStringList names, running;
    for (const LoggedVariant& v : variants) {
        names << v.variant.tying;
        if (v.run && !v.run->finished)
            running << tr("%1 (step %2 of %3)")
                           .arg(v.variant.tying)
                           .arg(v.run->completedSteps)
                           .arg(v.run->plannedSteps);
    }
    const QString folder = QDir::toNativeSeparators(
        QFileInfo(QDir(variants.front().variant.folder).absolutePath()).absolutePath());
    const QString count = variants.size() == 1 ? tr("1 trained variant")
                                               : tr("%1 trained variants").arg(variants.size());
    QString text = tr("<b>%1</b> · %2: %3 · in %4")
                       .arg(m_lab->family().prefix.toHtmlEscaped(), count,
                            names.join(QStringLiteral(", ")), folder.toHtmlEscaped());
    if (!running.isEmpty())
        text += tr("<br>Not finished: %1. The tab reads each new checkpoint as it is written.")
                    .arg(running.join(QStringLiteral(", ")));
    m_banner->setText(text);
}

void TrainingView::refreshAttention() {
    const LabDocument& d = document();
    m_panelVariants.clear();
    m_notice->hide();
    if (d.text().trimmed().isEmpty()) {
        m_lab->requestAttention(QString(), d.layer(), d.head());
        m_heatmap->showPlaceholder(tr("Type a sentence above to see it under every variant."));
        return;
    }
    m_lab->requestAttention(d.text(), d.layer(), d.head());
    const auto snapshot = m_lab->attention();
    if (!snapshot || snapshot->text != d.text() || snapshot->layer != d.layer() ||
        snapshot->head != d.head()) {
        m_heatmap->showPlaceholder(
            tr("Computing layer %1, head %2 under every variant…").arg(d.layer()).arg(d.head()));
        return;
    }
    QStringList notes;
    for (int i = 0; i < static_cast<int>(snapshot->variants.size()); ++i) {
        const VariantAttention& v = snapshot->variants[i];
        if (v.trace) m_panelVariants.push_back(i);
        if (!v.error.isEmpty())
            notes << tr("%1 shows nothing: %2").arg(v.variant.tying, v.error.toHtmlEscaped());
        else if (v.truncatedFrom)
            notes << tr("%1: the sentence has %2 tokens; this model reads at most %3, so the "
                        "last %4 are dropped.")
                         .arg(v.variant.tying)
                         .arg(*v.truncatedFrom)
                         .arg(v.tokens.size())
                         .arg(*v.truncatedFrom - static_cast<int>(v.tokens.size()));
    }
    m_notice->setText(notes.join(QStringLiteral("<br>")));
    m_notice->setVisible(!notes.isEmpty());
    if (m_panelVariants.empty()) {
        m_heatmap->showPlaceholder(tr("No variant could run this sentence (see below)."));
        return;
    }
    m_heatmap->showFigure(variantFigure(*snapshot, d.mode()), d.colorScheme());
}

QString TrainingView::cellToolTip(const HeatmapCell& cell) const {
    const auto snapshot = m_lab->attention();
    if (!snapshot || cell.panel >= static_cast<int>(m_panelVariants.size())) return {};
    const VariantAttention& v = snapshot->variants[m_panelVariants[cell.panel]];
    return QStringLiteral("<b>%1</b><br>").arg(v.variant.tying) +
           tokenPairHeading(v.tokens, cell.row, cell.col) + QStringLiteral("<br>") +
           headCellValues(*v.trace, snapshot->layer, snapshot->head, cell.row, cell.col,
                          KeyMask{v.causal, 0});
}

}  // namespace qkv::ui
