#pragma once
// Heatmap data for one head from a forward pass's trace: rows are queries (the attending token),
// columns keys (the attended token) — in cross-attention target tokens and source tokens.
// Masked attention cells (causal, outside a sliding window) are NaN so they show as masked
// rather than as a zero probability.
#include <QStringList>
#include <memory>

#include "core/model/architecture.h"
#include "core/model/attention_trace.h"
#include "ui/plot/heatmap_data.h"
#include "ui/plot/heatmap_mode.h"

namespace qkv::ui {

struct HeadMatrixOptions {
    KeyMask mask;
    bool scaleOutside = false;  // rows no longer sum to one: scale to the largest value
};

// The head must have been captured (the trace throws qkv::Error otherwise).
// S − Sᵀ needs a square S: for cross-attention the asymmetry mode shows the scores.
// The heatmap reads the trace's matrix in place and keeps the trace alive.
HeatmapData headHeatmap(const std::shared_ptr<const AttentionTrace>& trace,
                        const QStringList& rowLabels, const QStringList& colLabels, int layer,
                        int head, HeatmapMode mode, const HeadMatrixOptions& options);

// Falcon-H1: the implicit map of Mamba-2 head `mambaHead` of the mixer beside the layer's
// attention (signed, causal; its skip D in the scale's label).
HeatmapData besideHeatmap(const std::shared_ptr<const AttentionTrace>& trace,
                          const QStringList& rowLabels, const QStringList& colLabels, int layer,
                          int mambaHead);
// The captured heads of the mixer beside the layer's attention (0: none).
int besideHeadCount(const AttentionTrace& trace, int layer);

// A short convolution's band (LFM2): each channel's taps, one row per channel, one column per
// token it weighs (t−K+1 … t), signed; the layer has no heads.
HeatmapData bandHeatmap(const std::shared_ptr<const AttentionTrace>& trace, int layer);

// What the layer's mask hides from the head (core/analysis/hidden_keys.h): the dense
// counterfactual of its captured scores (NaN only where causality hides a key), each row labelled
// with the mass the mask drops; labelled a counterfactual.
HeatmapData hiddenKeysHeatmap(const std::shared_ptr<const AttentionTrace>& trace,
                              const QStringList& rowLabels, const QStringList& colLabels, int layer,
                              int head, const KeyMask& mask, bool maskSelf);

// config - learned, cell by cell (NaN where either is masked), diverging around zero.
HeatmapData differenceHeatmap(const HeatmapData& config, const HeatmapData& learned);

}  // namespace qkv::ui
