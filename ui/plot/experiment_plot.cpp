#include "ui/plot/experiment_plot.h"

#include <qcustomplot.h>

#include <algorithm>
#include <limits>

#include "ui/plot/loss_plot.h"

namespace qkv::ui {
namespace {

constexpr int kBandAlpha = 46;  // light enough that overlapping bands and lines stay readable
constexpr int kEdgeAlpha = 110;

QCPGraph* addBandGraph(QCustomPlot* plot, const SeedBand& band, double SeedBandPoint::*value,
                       const QPen& pen) {
    QCPGraph* graph = plot->addGraph();
    QVector<double> steps, values;
    for (const SeedBandPoint& p : band) {
        steps << p.step;
        values << p.*value;
    }
    graph->setData(steps, values, true);
    graph->setPen(pen);
    graph->removeFromLegend();
    return graph;
}

QColor withAlpha(QColor color, int alpha) {
    color.setAlpha(alpha);
    return color;
}

}  // namespace

bool drawSeedBands(QCustomPlot* plot, const std::vector<BandedCurve>& curves,
                   BandedQuantity quantity) {
    plot->clearGraphs();
    int lastStep = 1;
    for (const BandedCurve& curve : curves)
        for (const SeedBandPoint& p : curve.band) lastStep = std::max(lastStep, p.step);
    const int firstShown = quantity == BandedQuantity::LossLateHalf ? lastStep / 2 : 0;
    double low = std::numeric_limits<double>::infinity();
    double high = -std::numeric_limits<double>::infinity();
    int maxSeeds = 0;
    for (const BandedCurve& curve : curves) {
        const QPen edge(withAlpha(curve.color, kEdgeAlpha), 0.8);
        QCPGraph* lower = addBandGraph(plot, curve.band, &SeedBandPoint::min, edge);
        QCPGraph* upper = addBandGraph(plot, curve.band, &SeedBandPoint::max, edge);
        upper->setBrush(withAlpha(curve.color, kBandAlpha));
        upper->setChannelFillGraph(lower);
        QCPGraph* mean =
            addBandGraph(plot, curve.band, &SeedBandPoint::mean, QPen(curve.color, 2.2));
        mean->setName(curve.name);
        mean->addToLegend();
        for (const SeedBandPoint& p : curve.band) {
            maxSeeds = std::max(maxSeeds, p.seeds);
            if (p.step < firstShown) continue;
            low = std::min(low, p.min);
            high = std::max(high, p.max);
        }
    }
    // A legend entry for the band (no data): QCustomPlot draws a graph's key with its fill.
    QCPGraph* key = plot->addGraph();
    key->setPen(QPen(withAlpha(QColor(0x55, 0x55, 0x55), kEdgeAlpha), 0.8));
    key->setBrush(withAlpha(QColor(0x55, 0x55, 0x55), kBandAlpha + 20));
    key->setName(maxSeeds == 1 ? QStringLiteral("one seed")
                               : QStringLiteral("min–max over %1 seeds").arg(maxSeeds));

    const bool drawn = high >= low;
    switch (quantity) {
        case BandedQuantity::Loss:
            if (!drawn) {  // an empty but labelled plot
                low = 1;
                high = 10;
            }
            setLossAxes(plot, low, high, lastStep);
            break;
        case BandedQuantity::LossLateHalf: {
            const double margin = drawn ? std::max(1e-3, 0.08 * (high - low)) : 1.0;
            plot->xAxis->setLabel(QStringLiteral("optimizer step"));
            plot->xAxis->setRange(firstShown, lastStep * 1.02 - firstShown * 0.02);
            plot->yAxis->setLabel(QStringLiteral("loss (nats per token)"));
            plot->yAxis->setScaleType(QCPAxis::stLinear);
            plot->yAxis->setTicker(QSharedPointer<QCPAxisTicker>::create());
            plot->yAxis->setRange(drawn ? low - margin : 0, drawn ? high + margin : 1);
            break;
        }
        case BandedQuantity::Accuracy:
            setAccuracyAxes(plot, low, high, lastStep);
            break;
    }
    plot->legend->setVisible(true);
    return drawn;
}

}  // namespace qkv::ui
