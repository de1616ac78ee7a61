#include "ui/views/experiment_view.h"

#include <qcustomplot.h>

#include <QDir>
#include <QLabel>
#include <QSplitter>
#include <QVBoxLayout>

#include "ui/plot/experiment_plot.h"
#include "ui/plot/tying_colors.h"
#include "ui/support/wrapping_label.h"
#include "ui/views/experiment_table.h"

namespace qkv::ui {
namespace {

QCustomPlot* curvePlot(QWidget* parent) {
    auto* plot = new QCustomPlot(parent);
    plot->setMinimumSize(96, 90);  // three side by side fit a laptop's window
    return plot;
}

QString seedList(const std::vector<int>& seeds) {
    QStringList list;
    for (int seed : seeds) list << QString::number(seed);
    return list.join(QStringLiteral(", "));
}

}  // namespace

ExperimentView::ExperimentView(QWidget* parent) : QWidget(parent) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(8, 4, 8, 0);
    m_banner = wrappingLabel(this);
    connect(m_banner, &QLabel::linkActivated, this, &ExperimentView::closeRequested);
    layout->addWidget(m_banner);

    auto* split = new QSplitter(Qt::Vertical, this);
    auto* plots = new QSplitter(Qt::Horizontal, split);
    m_losses = curvePlot(plots);
    m_lateLosses = curvePlot(plots);
    m_accuracy = curvePlot(plots);
    plots->addWidget(m_losses);
    plots->addWidget(m_lateLosses);
    plots->addWidget(m_accuracy);
    m_table = new ExperimentTable(split);
    split->addWidget(plots);
    split->addWidget(m_table);
    split->setStretchFactor(0, 1);
    split->setStretchFactor(1, 0);
    layout->addWidget(split, 1);

    m_notice = wrappingLabel(this);
    m_notice->setStyleSheet(QStringLiteral("color: #b35900;"));
    m_notice->hide();
    layout->addWidget(m_notice);
}

void ExperimentView::setExperiment(ExperimentFolder experiment) {
    m_experiment = std::move(experiment);
    const ExperimentFolder& e = *m_experiment;
    QStringList names;
    for (const ExperimentVariant& v : e.variants) names << v.name;
    const std::vector<QColor> colors = variantColors(names);

    std::vector<BandedCurve> losses, accuracies;
    for (size_t i = 0; i < e.variants.size(); ++i) {
        losses.push_back({names[i], colors[i], seedBand(e.variants[i], validationLossOf)});
        accuracies.push_back({names[i], colors[i], seedBand(e.variants[i], relationAccuracyOf)});
    }
    drawSeedBands(m_losses, losses, BandedQuantity::Loss);
    m_losses->yAxis->setLabel(tr("validation loss (nats per token, log scale)"));
    m_losses->replot();
    drawSeedBands(m_lateLosses, losses, BandedQuantity::LossLateHalf);
    m_lateLosses->yAxis->setLabel(tr("validation loss, second half (nats per token)"));
    m_lateLosses->legend->setVisible(false);  // the whole run's plot names the colours
    m_lateLosses->replot();
    const bool hasAccuracy = drawSeedBands(m_accuracy, accuracies, BandedQuantity::Accuracy);
    m_accuracy->yAxis->setLabel(tr("relation accuracy (directed-relations probe)"));
    // The loss plot's legend names the colours; accuracy rises into the top right corner.
    m_accuracy->legend->setVisible(false);
    m_accuracy->setVisible(hasAccuracy);
    m_accuracy->replot();
    m_table->setExperiment(e, colors);
    m_table->setMaximumHeight(m_table->fittingHeight());  // the plots take the rest

    const QString folder = QDir::toNativeSeparators(e.folder);
    QString text = tr("<b>Experiment</b> %1 · %2 variants × %3 seeds (%4)")
                       .arg(folder.toHtmlEscaped())
                       .arg(e.variants.size())
                       .arg(e.seeds.size())
                       .arg(seedList(e.seeds));
    if (e.steps > 0) text += tr(" · %1 steps").arg(e.steps);
    if (!e.baseline.isEmpty()) text += tr(" · baseline <b>%1</b>").arg(e.baseline.toHtmlEscaped());
    text += tr(" · <a href=\"close\">Close the experiment</a>");
    text +=
        tr("<br>Lines: the mean over seeds; shaded: from the lowest to the highest seed at "
           "each step. Δ: the variant minus the baseline seed by seed, mean ± sd; "
           "<b>*</b> where it exceeds its spread over seeds.");
    m_banner->setText(text);

    const QStringList errors = e.runErrors();
    QStringList escaped;
    for (const QString& error : errors) escaped << error.toHtmlEscaped();
    m_notice->setText(tr("Not drawn: %1").arg(escaped.join(QStringLiteral("<br>"))));
    m_notice->setVisible(!errors.isEmpty());
}

QString ExperimentView::bannerText() const { return m_banner->text(); }

QString ExperimentView::noticeText() const {
    return m_notice->isHidden() ? QString() : m_notice->text();
}

}  // namespace qkv::ui
