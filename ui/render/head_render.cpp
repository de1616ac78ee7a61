#include "ui/render/head_render.h"

#include <qcustomplot.h>

#include "core/model/forward.h"
#include "core/util/error.h"
#include "ui/export/figure_data.h"
#include "ui/export/figure_export.h"
#include "ui/export/model_provenance.h"
#include "ui/export/plot_provenance.h"
#include "ui/plot/head_figures.h"

namespace qkv::ui {

HeadRenderResult renderHeadToFile(const Model& model, Backend& backend,
                                  const HeadRenderRequest& request, const QString& path) {
    const Architecture& c = model.architecture();
    if (request.layer < 0 || request.layer >= c.layers)
        throw Error("layer " + std::to_string(request.layer) + " does not exist (the model has " +
                    std::to_string(c.layers) + " layers, 0-based)");
    // A hybrid's layers have heads of their own count, a short convolution or MLP block none.
    const int heads = c.headsOf(request.layer);
    if (heads == 0)
        throw Error("layer " + std::to_string(request.layer) + " has no heads (a " +
                    c.kindName(request.layer) + " layer)");
    if (request.head < 0 || request.head >= heads)
        throw Error("head " + std::to_string(request.head) + " does not exist (layer " +
                    std::to_string(request.layer) + " has " + std::to_string(heads) +
                    " heads, 0-based)");
    if (!imageFormatForPath(path))
        throw Error(path.toStdString() + ": unknown image type (use .png, .svg or .pdf)");

    ForwardRequest forward;
    QStringList labels;
    for (const ShownToken& t : request.tokens) {
        forward.ids.push_back(t.id);
        labels << t.label;
    }
    forward.config = request.config;
    forward.capture.layer = request.layer;
    forward.capture.head = request.head;
    forward.logits = LogitsMode::None;
    ForwardPass pass(model, backend);
    HeadFigureInput input;
    input.trace = std::make_shared<const AttentionTrace>(pass.run(forward).trace);
    if (request.compare) {
        forward.config = WConfiguration{};
        input.learned = std::make_shared<const AttentionTrace>(pass.run(forward).trace);
    }
    input.labels = labels;
    input.keyLabels = labels;
    input.config = request.config;
    input.layer = request.layer;
    input.head = request.head;
    input.mode = request.mode;
    input.mask = c.keyMask(request.layer);
    input.layerKind = QString::fromStdString(c.describeLayer(request.layer));
    input.headName = request.headName;

    QCustomPlot plot;
    plot.resize(request.size);
    HeatmapFigure figure(&plot);
    figure.setColorScheme(request.colors);
    figure.show(request.compare ? compareFigure(input) : headFigure(input));

    FigureProvenance provenance = modelProvenance(model);
    if (request.text) provenance.text = request.text->toStdString();
    provenance.ids = forward.ids;
    provenance.block = blockName(model, AttentionKind::Self);
    provenance.layer = request.layer;
    provenance.head = request.head;
    provenance.setConfig(request.config);
    provenance.view = request.compare ? "compare" : "head";
    provenance.mode = heatmapModeName(request.mode).toStdString();
    provenance.colorMap = request.colors.sequential.toStdString();
    provenance.divergingColorMap = request.colors.diverging.toStdString();
    provenance.stamp();
    setPlotProvenance(&plot, provenance);

    HeadRenderResult result;
    result.pngScale = exportFigure(figure, path, request.size);
    if (request.writeData)
        result.dataFiles = writeFigureData(figure.spec(), figureProvenance(figure), path);
    return result;
}

}  // namespace qkv::ui
