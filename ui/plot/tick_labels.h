#pragma once
// The token labels of a heatmap's axes: every token while one fits each cell (the font shrinking
// to 6 pt, slanted column labels standing up), else every k-th in round steps.
#include <QFont>
#include <QStringList>

class QCPAxis;

namespace qkv::ui {

// Styles a label axis for `count` labels (its font, no grid or sub-ticks).
void styleLabelAxis(QCPAxis* axis, int count);
// Every `stride`-th label, long ones cut with "…".
void setLabelTicks(QCPAxis* axis, const QStringList& labels, int stride);
// The smallest k of 1, 2, 5, 10, 20, 50, ... such that every k-th label fits in `cellPixels` per
// cell. Round steps keep most labels in place while zooming: those at multiples of 100 stay when
// the step falls to 50.
int strideFor(double needPixels, double cellPixels);
// Whether column labels start slanted: many of them, or any longer than three characters.
bool needsRotation(const QStringList& labels);

// How an axis's labels sit: stacked (rows), side by side (upright columns), slanted (columns
// at 60°, read most easily) or standing (columns at 90°, the closest).
enum class LabelRun { Stacked, SideBySide, Slanted, Standing };

struct TickFit {
    int points;
    int stride;
    LabelRun run;
};

// Every label while one fits each cell: the count's own font, else a smaller one down to 6 pt
// (legible on screen and in print), slanted columns standing up before that; only then every
// k-th label, in the count's font.
TickFit fitTicks(QFont font, const QStringList& labels, LabelRun run, double cellPixels);
// Sets the axis's font, slant and labels to `fit` and `stride` to its stride; whether they
// changed.
bool applyTickFit(QCPAxis* axis, const QStringList& labels, TickFit fit, int& stride);

}  // namespace qkv::ui
