#include "ui/export/plot_provenance.h"

#include <qcustomplot.h>

#include <algorithm>

#include "ui/plot/heatmap_figure.h"

namespace qkv::ui {
namespace {
constexpr char kProperty[] = "qkvlabProvenance";
}

void setPlotProvenance(QCustomPlot* plot, const FigureProvenance& provenance) {
    plot->setProperty(kProperty, QString::fromStdString(provenance.toJson().dump(
                                     -1, ' ', false, nlohmann::json::error_handler_t::replace)));
}

FigureProvenance plotProvenance(const QCustomPlot* plot) {
    const QString json = plot->property(kProperty).toString();
    if (json.isEmpty()) return {};
    return FigureProvenance::fromJson(nlohmann::json::parse(json.toStdString()));
}

FigureProvenance figureProvenance(const HeatmapFigure& figure) {
    FigureProvenance p = plotProvenance(figure.plot());
    const auto& panels = figure.spec().panels;
    const auto diverging = [](const HeatmapPanel& panel) { return panel.data.diverging; };
    if (std::none_of(panels.begin(), panels.end(), diverging)) p.divergingColorMap.reset();
    if (std::all_of(panels.begin(), panels.end(), diverging)) p.colorMap.reset();
    return p;
}

}  // namespace qkv::ui
