#pragma once
// The Atlas tab's figure: one atlas score's mean over the corpus on the layers x heads grid,
// coloured as the Overview colours its metrics.
#include <QString>

#include "core/analysis/head_atlas.h"
#include "core/report/atlas_file.h"
#include "ui/plot/heatmap_figure.h"

namespace qkv::ui {

// A score's title and one line on what it means ("change_shared-qk": "Change under shared-qk").
QString atlasScoreTitle(const QString& score);
QString atlasScoreHelp(const QString& score);

// Rows are layers, columns heads; NaN where no sequence gave the head the score. Shares and
// changes span 0 to 1, symmetry and directionality −1 to 1 (diverging), entropy and distance 0
// to their largest value.
FigureSpec atlasFigure(const HeadAtlas& atlas, const AtlasProvenance& provenance, int score);

}  // namespace qkv::ui
