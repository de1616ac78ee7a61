#pragma once
// The Training tab's figure: the sentence's heatmap at one head under every trained variant, two
// panels a row, on one colour scale so the variants compare cell by cell. Variants that failed
// (no tokenizer, too few layers) have no panel; the view lists why.
#include "ui/plot/heatmap_figure.h"
#include "ui/plot/heatmap_mode.h"
#include "ui/training/variant_attention.h"

namespace qkv::ui {

FigureSpec variantFigure(const VariantSnapshot& snapshot, HeatmapMode mode);

}  // namespace qkv::ui
