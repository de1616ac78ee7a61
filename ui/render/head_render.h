#pragma once
// Headless rendering of one head's figure to a file, for scripts and papers
// (`qkvlab-cli render`). It draws with the app's own figure builder (head_figures.h) and exporter,
// so the picture equals File ▸ Export of the Head (or Compare) tab at the same size. Needs a
// QApplication (the offscreen platform is enough).
#include <QSize>
#include <QString>
#include <QStringList>
#include <optional>
#include <vector>

#include "core/backend/backend.h"
#include "core/model/model.h"
#include "core/model/w_configuration.h"
#include "ui/compute/compute_types.h"
#include "ui/plot/color_maps.h"
#include "ui/plot/heatmap_mode.h"

namespace qkv::ui {

struct HeadRenderRequest {
    std::vector<ShownToken> tokens;
    WConfiguration config;
    int layer = 0;
    int head = 0;
    HeatmapMode mode = HeatmapMode::Attention;
    bool compare = false;  // learned | configuration | difference, as in the Compare tab
    ColorScheme colors;
    QSize size{1000, 820};        // logical pixels; PNG is drawn at twice this
    std::optional<QString> text;  // the sentence the tokens came from, for the provenance
    bool writeData = false;       // also the drawn matrices beside the figure (figure_data.h)
    QString headName;             // the user's name of the head, in the title
};

struct HeadRenderResult {
    std::optional<double> pngScale;  // the pixel scale a PNG was drawn at (see exportFigure)
    QStringList dataFiles;           // with writeData: the JSON, then the CSV files
};

// Runs the forward pass and writes the figure (PNG, SVG or PDF by extension) with its provenance
// (model, weights, text, ids, head, configuration, view, colour maps). Throws qkv::Error.
HeadRenderResult renderHeadToFile(const Model& model, Backend& backend,
                                  const HeadRenderRequest& request, const QString& path);

}  // namespace qkv::ui
