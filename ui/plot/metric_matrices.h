#pragma once
// The model overview: one head metric over the layers x heads grid, as heatmap data.
#include <QString>
#include <optional>
#include <vector>

#include "core/analysis/head_metrics.h"
#include "ui/plot/heatmap_figure.h"

namespace qkv::ui {

enum class HeadMetric {
    WqkSymmetry,
    ScoreSymmetry,
    QkSimilarity,
    QvSimilarity,
    KvSimilarity,
    EigenPositivity,
    WqkRank,
    WqkDirectionality,
    OvCopying,
    OvRank,
    SinkShare,  // only where the model has attention sinks
    MeanDistance,
    SelfShare,
    DroppedMass,  // only where some layer's mask hides keys (sliding windows, chunks, an indexer)
    IndexerAgreement,  // only where a sparse attention's indexer keeps keys (DeepSeek-V3.2)
    // Only while another checkpoint is compared (File ▸ Compare With…).
    AttentionChange,
    WqkSymmetryChange,
};

// Whether the metric compares the open model with another checkpoint.
bool isComparisonMetric(HeadMetric metric);

// Whether its values come with a sentence's computation: the scores' symmetry, the sinks' share
// and the comparisons; the others are the weights' own and need no text.
bool readsTheSentence(HeadMetric metric);

struct HeadMetricInfo {
    HeadMetric metric;
    QString key;    // for settings: "wqk-symmetry"
    QString title;  // for menus and the colour scale
    QString help;   // one line on what it means
    bool diverging;
};

const std::vector<HeadMetricInfo>& headMetricInfos();  // in menu order
const HeadMetricInfo& headMetricInfo(HeadMetric metric);

// Empty when the metric was not computed for this head (score symmetry of an uncaptured head).
std::optional<double> headMetricValue(const HeadMetrics& head, HeadMetric metric);

// Grids of at most this many cells print each value inside its cell.
inline constexpr int kMaxAnnotatedCells = 400;

// Rows are layers, columns heads; NaN where a value is missing. headDim bounds the rank's scale;
// a comparison's scale reaches the largest change (quantisation moves attention by hundredths).
HeatmapData metricHeatmap(const ModelMetrics& metrics, HeadMetric metric, int headDim);
FigureSpec overviewFigure(const ModelMetrics& metrics, HeadMetric metric, const QString& subtitle,
                          int headDim);

}  // namespace qkv::ui
