#include "ui/plot/head_matrices.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace qkv::ui {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

HeatmapData frame(int rows, int cols, const QStringList& rowLabels, const QStringList& colLabels) {
    HeatmapData data;
    data.rows = rows;
    data.cols = cols;
    data.values.assign(static_cast<size_t>(rows) * cols, 0.0);
    data.rowLabels = rowLabels;
    data.colLabels = colLabels;
    data.rowTitle = QStringLiteral("query (attending)");
    data.colTitle = QStringLiteral("key (attended to)");
    return data;
}

}  // namespace

HeatmapData headHeatmap(const AttentionTrace& trace, const QStringList& rowLabels,
                        const QStringList& colLabels, int layer, int head, HeatmapMode mode,
                        const HeadMatrixOptions& options) {
    const int n = trace.tokens(), keys = trace.keyTokens();
    HeatmapData data = frame(n, keys, rowLabels, colLabels);
    if (n != keys && mode == HeatmapMode::Asymmetry) mode = HeatmapMode::Scores;
    if (mode == HeatmapMode::Attention) {
        const RowMatrixXf& a = trace.probabilities(layer, head);
        double largest = 0;
        for (int i = 0; i < n; ++i)
            for (int j = 0; j < keys; ++j) {
                const bool masked = options.mask.hides(i, j);
                data.at(i, j) = masked ? kNaN : a(i, j);
                if (!masked) largest = std::max(largest, static_cast<double>(a(i, j)));
            }
        data.scaleLabel = QStringLiteral("attention A_ij");
        data.high = options.scaleOutside && largest > 0 ? largest : 1.0;
        return data;
    }
    const RowMatrixXf& s = trace.scores(layer, head);
    double largestScore = 0;
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < keys; ++j) {
            largestScore = std::max(largestScore, std::abs(static_cast<double>(s(i, j))));
            data.at(i, j) = mode == HeatmapMode::Scores ? s(i, j) : s(i, j) - s(j, i);
        }
    data.diverging = true;
    if (mode == HeatmapMode::Scores) {
        data.scaleLabel = QStringLiteral("score S_ij");
        setSymmetricRange(data, 0);
    } else {
        data.scaleLabel = QStringLiteral("S_ij − S_ji");
        setSymmetricRange(data, 1e-3 * largestScore);
    }
    return data;
}

HeatmapData differenceHeatmap(const HeatmapData& config, const HeatmapData& learned) {
    HeatmapData data = config;
    for (int i = 0; i < data.rows; ++i)
        for (int j = 0; j < data.cols; ++j) data.at(i, j) = config.at(i, j) - learned.at(i, j);
    data.diverging = true;
    data.scaleLabel = QStringLiteral("difference");
    setSymmetricRange(data, 1e-3 * std::max(maxAbsValue(config), maxAbsValue(learned)));
    return data;
}

}  // namespace qkv::ui
