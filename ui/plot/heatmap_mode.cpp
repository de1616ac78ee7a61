#include "ui/plot/heatmap_mode.h"

namespace qkv::ui {

QString heatmapModeName(HeatmapMode mode) {
    switch (mode) {
        case HeatmapMode::Attention:
            return QStringLiteral("attention");
        case HeatmapMode::Scores:
            return QStringLiteral("scores");
        case HeatmapMode::Asymmetry:
            return QStringLiteral("asymmetry");
    }
    return {};
}

std::optional<HeatmapMode> parseHeatmapMode(const QString& name) {
    for (HeatmapMode mode : {HeatmapMode::Attention, HeatmapMode::Scores, HeatmapMode::Asymmetry})
        if (heatmapModeName(mode) == name) return mode;
    return std::nullopt;
}

QString heatmapModeLabel(HeatmapMode mode) {
    switch (mode) {
        case HeatmapMode::Attention:
            return QStringLiteral("Attention A");
        case HeatmapMode::Scores:
            return QStringLiteral("Scores S");
        case HeatmapMode::Asymmetry:
            return QStringLiteral("Asymmetry S − Sᵀ");
    }
    return {};
}

}  // namespace qkv::ui
