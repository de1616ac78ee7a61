#pragma once
// "Also save the data": the matrices a figure draws, beside the figure file, so a reader can
// check or replot them. For FIGURE.png (or .svg, .pdf):
//   FIGURE.json  {"provenance": {...}, "rows": [labels], "columns": [labels], "values": [[...]]}
//                (several panels: "panels": [{"title", "rows", "columns", "values"}, ...])
//   FIGURE.csv   a header row of the column labels, then one row per query, its label first
//                (several panels: FIGURE-1.csv, FIGURE-2.csv, ...)
// The values are the drawn cells' numbers themselves; a masked cell is null in JSON and empty in
// CSV. Numbers that are floats are written with a float's shortest round-trip digits.
#include <QString>
#include <QStringList>

#include "ui/export/figure_provenance.h"
#include "ui/plot/heatmap_figure.h"

namespace qkv::ui {

// Writes the files (each all-or-nothing) and returns their paths. Throws qkv::Error.
QStringList writeFigureData(const FigureSpec& spec, const FigureProvenance& provenance,
                            const QString& figurePath);

}  // namespace qkv::ui
