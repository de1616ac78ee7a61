#pragma once
// The Training tab's loss curves: every variant's validation loss (solid) and training loss
// (dashed) in its tying's colour, against the optimizer step, on a logarithmic loss axis (the
// first hundred steps fall from ~6 nats, the rest differ in the second decimal).
#include <QSharedPointer>
#include <vector>

#include "ui/training/training_lab.h"

class QCustomPlot;
class QCPAxisTickerText;

namespace qkv::ui {

// Replaces the plot's graphs; the caller replots. Graph 2i is variant i's training loss and
// 2i + 1 its validation loss, for the variants that have a log, in their order.
void drawLossCurves(QCustomPlot* plot, const std::vector<LoggedVariant>& variants);
// Graph i is the relation accuracy of the i-th variant with a log (empty when it has none);
// returns whether any variant's log carries it.
bool drawAccuracyCurves(QCustomPlot* plot, const std::vector<LoggedVariant>& variants);

// Ticks at 1, 2, 5, 3, 1.5, 4, 6 or 8 times powers of ten between LOW and HIGH, as many as fit
// without crowding: readable losses on a log axis, which QCPAxisTickerLog would label only at
// powers of ten.
QSharedPointer<QCPAxisTickerText> lossTicker(double low, double high);
// The loss axis (log scale) and the relation-accuracy axis (linear, within [0, 1]) over the
// values drawn, from step 0 to LAST_STEP.
void setLossAxes(QCustomPlot* plot, double low, double high, int lastStep);
void setAccuracyAxes(QCustomPlot* plot, double low, double high, int lastStep);

}  // namespace qkv::ui
