#pragma once
// The colour maps of the heatmaps. QCustomPlot 2.1 ships no viridis, so the perceptually uniform
// maps are defined here from matplotlib's stops: sequential maps for values >= 0 (attention,
// similarities) and diverging maps, white at zero, for signed values (scores, S - S^T,
// differences, symmetry scores). Masked cells (NaN) are drawn in a light grey.
#include <qcustomplot.h>

#include <QString>
#include <QStringList>

namespace qkv::ui {

struct ColorScheme {
    QString sequential = QStringLiteral("viridis");
    QString diverging = QStringLiteral("blue-white-red");
};

QStringList sequentialMapNames();  // viridis, cividis (colour-blind safe), magma, greys
QStringList divergingMapNames();   // blue-white-red, purple-white-green

// Unknown names fall back to the first map of the family.
QCPColorGradient sequentialGradient(const QString& name);
QCPColorGradient divergingGradient(const QString& name);

QColor maskedCellColor();

}  // namespace qkv::ui
