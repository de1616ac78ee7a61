#include "ui/views/training_table.h"

#include <QHeaderView>
#include <QLocale>
#include <cmath>
#include <limits>

#include "ui/plot/tying_colors.h"
#include "ui/views/table_cells.h"

namespace qkv::ui {
namespace {

QString stepsText(const TrainingRun& run) {
    if (run.finished || run.plannedSteps <= 0) return QLocale().toString(run.completedSteps);
    return QStringLiteral("%1 / %2").arg(QLocale().toString(run.completedSteps),
                                         QLocale().toString(run.plannedSteps));
}

}  // namespace

TrainingTable::TrainingTable(QWidget* parent) : QTableWidget(parent) {
    setColumnCount(7);
    setHorizontalHeaderLabels({tr("variant"), tr("val loss"), tr("perplexity"), tr("train loss"),
                               tr("steps"), tr("parameters"), tr("tokens/s")});
    horizontalHeaderItem(ValLoss)->setToolTip(
        tr("Final validation loss: mean next-token cross-entropy, nats per token"));
    horizontalHeaderItem(Perplexity)->setToolTip(tr("exp(validation loss)"));
    horizontalHeaderItem(TrainLoss)->setToolTip(tr("Mean training loss over the last interval"));
    horizontalHeaderItem(Parameters)
        ->setToolTip(tr("Distinct trained parameters: tying shares attention matrices"));
    verticalHeader()->hide();
    horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    horizontalHeader()->setStretchLastSection(true);
    setEditTriggers(QAbstractItemView::NoEditTriggers);
    setSelectionMode(QAbstractItemView::NoSelection);
    setFocusPolicy(Qt::NoFocus);
    setAlternatingRowColors(true);
}

void TrainingTable::setVariants(const std::vector<LoggedVariant>& variants) {
    clearSpans();
    setRowCount(static_cast<int>(variants.size()));
    double best = std::numeric_limits<double>::infinity();
    for (const LoggedVariant& v : variants)
        if (v.run && !v.run->points.empty()) best = std::min(best, v.run->finalValLoss);
    for (int row = 0; row < static_cast<int>(variants.size()); ++row) {
        const LoggedVariant& v = variants[row];
        QTableWidgetItem* name = readOnlyCell(v.variant.tying, Qt::AlignLeft);
        name->setIcon(colorSwatch(tyingColor(v.variant.tying)));
        name->setToolTip(v.variant.folder);
        setItem(row, Variant, name);
        for (int column = ValLoss; column < columnCount(); ++column)
            setItem(row, column, readOnlyCell({}));
        if (!v.run || v.run->points.empty()) {
            const QString why = !v.error.isEmpty() ? v.error
                                : v.run            ? tr("no validation yet")
                                                   : tr("no training_log.json");
            item(row, ValLoss)->setText(why);
            item(row, ValLoss)->setToolTip(why);
            setSpan(row, ValLoss, 1, columnCount() - ValLoss);
            continue;
        }
        const TrainingRun& run = *v.run;
        QTableWidgetItem* val = item(row, ValLoss);
        val->setText(QString::number(run.finalValLoss, 'f', 4));
        if (run.evaluationLoss)
            val->setToolTip(tr("qkvlab-cli evaluate: %1").arg(*run.evaluationLoss, 0, 'f', 4));
        if (run.finalValLoss == best && variants.size() > 1) {
            QFont bold = val->font();
            bold.setBold(true);
            val->setFont(bold);
        }
        item(row, Perplexity)->setText(QString::number(run.perplexity, 'f', 3));
        // Only the step-0 entry so far: no training loss yet.
        if (!std::isnan(run.finalTrainLoss))
            item(row, TrainLoss)->setText(QString::number(run.finalTrainLoss, 'f', 4));
        item(row, Steps)->setText(stepsText(run));
        if (!run.finished) item(row, Steps)->setToolTip(tr("still training, or interrupted"));
        item(row, Parameters)->setText(QLocale().toString(run.parameters));
        item(row, TokensPerSecond)
            ->setText(QLocale().toString(qlonglong(std::llround(run.tokensPerSecond))));
    }
}

}  // namespace qkv::ui
