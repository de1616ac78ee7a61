#pragma once
// The Training tab's curves for a multi-seed experiment: per variant, in its colour, the mean
// over seeds as a line and the min–max range over seeds as a shaded band behind it.
#include <QColor>
#include <QString>
#include <vector>

#include "ui/training/seed_bands.h"

class QCustomPlot;

namespace qkv::ui {

struct BandedCurve {
    QString name;
    QColor color;
    SeedBand band;  // may be empty: the variant's three graphs are then empty
};

enum class BandedQuantity {
    Loss,          // the whole run on a log-scale loss axis
    LossLateHalf,  // the second half of the run on a linear axis fitted to it: where the
                   // variants differ by hundredths of a nat, which the whole run's axis hides
    Accuracy,      // relation accuracy on a linear axis within [0, 1]
};

// Replaces the plot's graphs; the caller replots. For curve i, graph 3i is the band's lower edge
// (the minimum over seeds), 3i + 1 its upper edge (the maximum, filled down to the lower edge)
// and 3i + 2 the mean; then one legend key for the band. Returns whether anything was drawn.
bool drawSeedBands(QCustomPlot* plot, const std::vector<BandedCurve>& curves,
                   BandedQuantity quantity);

}  // namespace qkv::ui
