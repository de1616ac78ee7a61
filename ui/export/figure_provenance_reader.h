#pragma once
// Reads the provenance figure_metadata.h wrote back out of a PNG, SVG or PDF (told apart by
// their first bytes, not their names): what `qkvlab-cli info --figure` prints.
#include <QString>
#include <optional>

#include "ui/export/figure_provenance.h"

namespace qkv::ui {

// nullopt when the file carries no QKV Lab provenance. Throws qkv::Error when the file cannot be
// read, is none of the three formats, or its record is not valid JSON.
std::optional<FigureProvenance> readFigureProvenance(const QString& path);

}  // namespace qkv::ui
