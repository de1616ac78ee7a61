#include "ui/views/experiment_table.h"

#include <QHeaderView>
#include <QLocale>
#include <QScrollBar>

#include "ui/views/table_cells.h"

namespace qkv::ui {
namespace {

constexpr int kLossDecimals = 4;
constexpr int kAccuracyDecimals = 3;

QTableWidgetItem* spreadCell(const std::optional<SeedSpread>& s, int decimals) {
    if (!s) return readOnlyCell(QStringLiteral("—"));
    QTableWidgetItem* item = readOnlyCell(ExperimentTable::meanAndSd(s->mean, s->sd, decimals));
    item->setToolTip(QStringLiteral("min %1, max %2 over seeds")
                         .arg(s->min, 0, 'f', decimals)
                         .arg(s->max, 0, 'f', decimals));
    return item;
}

QTableWidgetItem* differenceCell(const ExperimentVariant& v, const QString& baseline,
                                 const std::optional<PairedDifference>& d, int decimals) {
    if (v.name == baseline) return readOnlyCell(QStringLiteral("baseline"));
    if (!d) return readOnlyCell(QStringLiteral("—"));
    QTableWidgetItem* item = readOnlyCell(ExperimentTable::difference(*d, decimals));
    if (d->exceedsSpread) {
        QFont bold = item->font();
        bold.setBold(true);
        item->setFont(bold);
        item->setToolTip(QStringLiteral("Larger than its spread over seeds"));
    } else {
        item->setToolTip(QStringLiteral("Within its spread over seeds: not a measured difference"));
    }
    return item;
}

}  // namespace

ExperimentTable::ExperimentTable(QWidget* parent) : QTableWidget(parent) {
    setColumnCount(7);
    setHorizontalHeaderLabels({tr("variant"), tr("seeds"), tr("parameters"), tr("val loss"),
                               tr("Δ val loss"), tr("relation acc."), tr("Δ relation acc.")});
    horizontalHeaderItem(ValLoss)->setToolTip(
        tr("Final validation loss (nats per token): mean ± sample sd over seeds"));
    horizontalHeaderItem(ValLossVsBaseline)
        ->setToolTip(tr("Paired difference from the baseline, seed by seed: mean ± sd; * where it "
                        "exceeds its spread"));
    horizontalHeaderItem(RelationAccuracy)
        ->setToolTip(tr("Final directed-relations probe accuracy: mean ± sample sd over seeds"));
    horizontalHeaderItem(RelationAccuracyVsBaseline)
        ->setToolTip(horizontalHeaderItem(ValLossVsBaseline)->toolTip());
    verticalHeader()->hide();
    horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    setEditTriggers(QAbstractItemView::NoEditTriggers);
    setSelectionMode(QAbstractItemView::NoSelection);
    setFocusPolicy(Qt::NoFocus);
    setAlternatingRowColors(true);
}

int ExperimentTable::fittingHeight() const {
    int height = horizontalHeader()->sizeHint().height() + 2 * frameWidth();
    for (int row = 0; row < rowCount(); ++row) height += verticalHeader()->sectionSize(row);
    return height + horizontalScrollBar()->sizeHint().height();  // should the columns not fit
}

QString ExperimentTable::meanAndSd(double mean, double sd, int decimals) {
    return QStringLiteral("%1 ± %2").arg(mean, 0, 'f', decimals).arg(sd, 0, 'f', decimals);
}

QString ExperimentTable::difference(const PairedDifference& d, int decimals) {
    const QString sign = d.mean >= 0 ? QStringLiteral("+") : QString();
    return sign + meanAndSd(d.mean, d.sd, decimals) +
           (d.exceedsSpread ? QStringLiteral(" *") : QString());
}

void ExperimentTable::setExperiment(const ExperimentFolder& experiment,
                                    const std::vector<QColor>& colors) {
    setRowCount(static_cast<int>(experiment.variants.size()));
    for (int row = 0; row < rowCount(); ++row) {
        const ExperimentVariant& v = experiment.variants[row];
        QTableWidgetItem* name = readOnlyCell(v.name, Qt::AlignLeft);
        name->setIcon(colorSwatch(colors.at(row)));
        setItem(row, Variant, name);
        int loaded = 0;
        for (const ExperimentRun& r : v.runs) loaded += r.run.has_value();
        QTableWidgetItem* seeds = readOnlyCell(loaded == static_cast<int>(v.runs.size())
                                                   ? QString::number(loaded)
                                                   : tr("%1 of %2").arg(loaded).arg(v.runs.size()));
        if (loaded < static_cast<int>(v.runs.size()))
            seeds->setToolTip(tr("Some runs' logs are missing: their curves are not drawn"));
        setItem(row, Seeds, seeds);
        setItem(row, Parameters,
                readOnlyCell(v.parameters > 0 ? QLocale().toString(v.parameters)
                                              : QStringLiteral("—")));
        setItem(row, ValLoss, spreadCell(v.valLoss, kLossDecimals));
        setItem(row, ValLossVsBaseline,
                differenceCell(v, experiment.baseline, v.valLossVsBaseline, kLossDecimals));
        setItem(row, RelationAccuracy, spreadCell(v.relationAccuracy, kAccuracyDecimals));
        setItem(row, RelationAccuracyVsBaseline,
                differenceCell(v, experiment.baseline, v.relationAccuracyVsBaseline,
                               kAccuracyDecimals));
    }
}

}  // namespace qkv::ui
