#include "ui/plot/loss_plot.h"

#include <qcustomplot.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "ui/plot/tying_colors.h"

namespace qkv::ui {
namespace {

// Entries without the value (a step-0 entry has no training loss yet) are left out.
template <typename Value>
QCPGraph* addCurve(QCustomPlot* plot, const std::vector<TrainingPoint>& points, Value value,
                   const QPen& pen) {
    QCPGraph* graph = plot->addGraph();
    QVector<double> steps, values;
    for (const TrainingPoint& p : points) {
        const std::optional<double> v = value(p);
        if (!v || std::isnan(*v)) continue;
        steps << p.step;
        values << *v;
    }
    graph->setData(steps, values, true);
    graph->setPen(pen);
    return graph;
}

std::optional<double> trainLoss(const TrainingPoint& p) { return p.trainLoss; }
std::optional<double> valLoss(const TrainingPoint& p) { return p.valLoss; }
std::optional<double> relationAccuracy(const TrainingPoint& p) { return p.relationAccuracy; }

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
        addCurve(plot, v.run->points, trainLoss, QPen(color, 1.5, Qt::DashLine))
            ->removeFromLegend();
        addCurve(plot, v.run->points, valLoss, QPen(color, 2.2))->setName(v.variant.tying);
        for (const TrainingPoint& p : v.run->points) {
            for (double loss : {p.trainLoss, p.valLoss}) {
                if (std::isnan(loss)) continue;
                low = std::min(low, loss);
                high = std::max(high, loss);
            }
            lastStep = std::max(lastStep, p.step);
        }
    }
    addStyleKey(plot, QStringLiteral("validation"), Qt::SolidLine);
    addStyleKey(plot, QStringLiteral("training"), Qt::DashLine);
    if (!(high > 0)) {  // no points: an empty but labelled plot
        low = 1;
        high = 10;
    }
    setLossAxes(plot, low, high, lastStep);
    plot->legend->setVisible(true);
}

bool drawAccuracyCurves(QCustomPlot* plot, const std::vector<LoggedVariant>& variants) {
    plot->clearGraphs();
    double low = 1;
    double high = 0;
    int lastStep = 1;
    for (const LoggedVariant& v : variants) {
        if (!v.run || v.run->points.empty()) continue;
        addCurve(plot, v.run->points, relationAccuracy, QPen(tyingColor(v.variant.tying), 2.2))
            ->setName(v.variant.tying);
        for (const TrainingPoint& p : v.run->points) {
            lastStep = std::max(lastStep, p.step);
            if (!p.relationAccuracy) continue;
            low = std::min(low, *p.relationAccuracy);
            high = std::max(high, *p.relationAccuracy);
        }
    }
    setAccuracyAxes(plot, low, high, lastStep);
    plot->legend->setVisible(false);  // the loss plot above names the colours
    return high >= low;
}

QSharedPointer<QCPAxisTickerText> lossTicker(double low, double high) {
    // Candidates by niceness; one too close (on the log axis) to a tick already taken is left
    // out, so a range over a decade or more keeps about seven labels that do not collide.
    constexpr double kMantissas[] = {1.0, 2.0, 5.0, 3.0, 1.5, 4.0, 6.0, 8.0};
    constexpr double kMaxTicks = 7;
    const double minRatio = std::max(1.2, std::pow(high / low, 1.0 / kMaxTicks));
    std::vector<double> ticks;
    for (double mantissa : kMantissas)
        for (int exponent = static_cast<int>(std::floor(std::log10(low)));
             exponent <= static_cast<int>(std::ceil(std::log10(high))); ++exponent) {
            const double value = mantissa * std::pow(10.0, exponent);
            if (value < low || value > high) continue;
            const bool crowded = std::any_of(ticks.begin(), ticks.end(), [&](double t) {
                return std::max(t, value) / std::min(t, value) < minRatio * 0.999;
            });
            if (!crowded) ticks.push_back(value);
        }
    auto ticker = QSharedPointer<QCPAxisTickerText>::create();
    for (double value : ticks) ticker->addTick(value, QString::number(value, 'g', 3));
    return ticker;
}

void setLossAxes(QCustomPlot* plot, double low, double high, int lastStep) {
    plot->xAxis->setLabel(QStringLiteral("optimizer step"));
    plot->xAxis->setRange(0, lastStep * 1.02);
    plot->yAxis->setLabel(QStringLiteral("loss (nats per token, log scale)"));
    plot->yAxis->setScaleType(QCPAxis::stLogarithmic);
    plot->yAxis->setRange(low / 1.06, high * 1.06);
    plot->yAxis->setTicker(lossTicker(low / 1.06, high * 1.06));
}

void setAccuracyAxes(QCustomPlot* plot, double low, double high, int lastStep) {
    if (!(high >= low)) {  // nothing drawn
        low = 0;
        high = 1;
    }
    const double margin = std::max(0.02, 0.06 * (high - low));
    plot->xAxis->setLabel(QStringLiteral("optimizer step"));
    plot->xAxis->setRange(0, lastStep * 1.02);
    plot->yAxis->setLabel(QStringLiteral("relation accuracy"));
    plot->yAxis->setRange(std::max(0.0, low - margin), std::min(1.0, high + margin));
}

}  // namespace qkv::ui
