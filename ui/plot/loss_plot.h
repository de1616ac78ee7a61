#pragma once
// The Training tab's loss curves: every variant's validation loss (solid) and training loss
// (dashed) in its tying's colour, against the optimizer step, on a logarithmic loss axis (the
// first hundred steps fall from ~6 nats, the rest differ in the second decimal).
#include <vector>

#include "ui/training/training_lab.h"

class QCustomPlot;

namespace qkv::ui {

// Replaces the plot's graphs; the caller replots. Graph 2i is variant i's training loss and
// 2i + 1 its validation loss, for the variants that have a log, in their order.
void drawLossCurves(QCustomPlot* plot, const std::vector<LoggedVariant>& variants);

}  // namespace qkv::ui
