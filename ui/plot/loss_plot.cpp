#include "ui/plot/loss_plot.h"

#include <qcustomplot.h>

#include <cmath>
#include <limits>

#include "ui/plot/tying_colors.h"

namespace qkv::ui {
namespace {

// Ticks at 1, 1.5, 2, 3, 4, 5, 6, 8 times powers of ten: readable losses on a log axis, which
// QCPAxisTickerLog would label only at powers of ten.
QSharedPointer<QCPAxisTickerText> lossTicker(double low, double high) {
    auto ticker = QSharedPointer<QCPAxisTickerText>::create();
    for (int exponent = static_cast<int>(std::floor(std::log10(low)));
         exponent <= static_cast<int>(std::ceil(std::log10(high))); ++exponent)
        for (double mantissa : {1.0, 1.5, 2.0, 3.0, 4.0, 5.0, 6.0, 8.0}) {
            const double value = mantissa * std::pow(10.0, exponent);
            if (value >= low && value <= high)
                ticker->addTick(value, QString::number(value, 'g', 3));
        }
    return ticker;
}

QCPGraph* addCurve(QCustomPlot* plot, const std::vector<TrainingPoint>& points,
                   double TrainingPoint::*loss, const QPen& pen) {
    QCPGraph* graph = plot->addGraph();
    QVector<double> steps, values;
    for (const TrainingPoint& p : points) {
        steps << p.step;
        values << p.*loss;
    }
    graph->setData(steps, values, true);
    graph->setPen(pen);
    return graph;
}

// A legend entry for a line style (no data).
void addStyleKey(QCustomPlot* plot, const QString& name, Qt::PenStyle style) {
    QCPGraph* key = plot->addGraph();
    key->setPen(QPen(QColor(0x55, 0x55, 0x55), 1.6, style));
    key->setName(name);
}

}  // namespace

void drawLossCurves(QCustomPlot* plot, const std::vector<LoggedVariant>& variants) {
    plot->clearGraphs();
    double low = std::numeric_limits<double>::infinity();
    double high = 0;
    int lastStep = 1;
    for (const LoggedVariant& v : variants) {
        if (!v.run || v.run->points.empty()) continue;
        const QColor color = tyingColor(v.variant.tying);
        addCurve(plot, v.run->points, &TrainingPoint::trainLoss, QPen(color, 1.5, Qt::DashLine))
            ->removeFromLegend();
        addCurve(plot, v.run->points, &TrainingPoint::valLoss, QPen(color, 2.2))
            ->setName(v.variant.tying);
        for (const TrainingPoint& p : v.run->points) {
            low = std::min({low, p.trainLoss, p.valLoss});
            high = std::max({high, p.trainLoss, p.valLoss});
            lastStep = std::max(lastStep, p.step);
        }
    }
    addStyleKey(plot, QStringLiteral("validation"), Qt::SolidLine);
    addStyleKey(plot, QStringLiteral("training"), Qt::DashLine);
    if (!(high > 0)) {  // no points: an empty but labelled plot
        low = 1;
        high = 10;
    }

    plot->xAxis->setLabel(QStringLiteral("optimizer step"));
    plot->xAxis->setRange(0, lastStep * 1.02);
    plot->yAxis->setLabel(QStringLiteral("loss (nats per token, log scale)"));
    plot->yAxis->setScaleType(QCPAxis::stLogarithmic);
    plot->yAxis->setRange(low / 1.06, high * 1.06);
    plot->yAxis->setTicker(lossTicker(low / 1.06, high * 1.06));
    plot->legend->setVisible(true);
}

}  // namespace qkv::ui
