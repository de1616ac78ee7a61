#pragma once
// One head's heatmap drawn by the app's own figure builder (as `qkvlab-cli render` draws it),
// for a result's figure() and its inline picture in Jupyter. Built only with the GUI (Qt).
#include <string>
#include <vector>

#include "core/model/model.h"
#include "core/model/w_configuration.h"

namespace qkv::python {

struct HeadFigure {
    std::vector<int> ids;
    WConfiguration config;
    int layer = 0;
    int head = 0;
    std::string view = "attention";  // attention, scores or asymmetry
    int width = 1000, height = 820;  // logical pixels (PNG at twice this)
};

// Writes the figure to `path` (.png, .svg or .pdf) with its provenance record; throws qkv::Error.
void writeHeadFigure(const Model& model, const std::string& backend, const HeadFigure& figure,
                     const std::string& path);

}  // namespace qkv::python
