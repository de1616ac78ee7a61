#pragma once
// A figure's provenance kept on its QCustomPlot (as a dynamic property), set by the view that
// draws the plot and read by the exporter, so every export path of a plot carries it.
#include "ui/export/figure_provenance.h"

class QCustomPlot;

namespace qkv::ui {

class HeatmapFigure;

void setPlotProvenance(QCustomPlot* plot, const FigureProvenance& provenance);
// The record set last; an empty one when none was.
FigureProvenance plotProvenance(const QCustomPlot* plot);
// The plot's record with only the colour maps the figure's panels draw.
FigureProvenance figureProvenance(const HeatmapFigure& figure);

}  // namespace qkv::ui
