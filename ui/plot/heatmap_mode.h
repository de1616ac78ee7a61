#pragma once
// What a head's heatmap shows: the attention probabilities A, the raw scaled scores S (before
// masking), or the asymmetry S - S^T.
#include <QString>
#include <optional>

namespace qkv::ui {

enum class HeatmapMode { Attention, Scores, Asymmetry };

QString heatmapModeName(HeatmapMode mode);  // "attention", "scores", "asymmetry" (CLI --view)
std::optional<HeatmapMode> parseHeatmapMode(const QString& name);
QString heatmapModeLabel(HeatmapMode mode);  // for buttons: "Attention A", "Scores S", ...

}  // namespace qkv::ui
