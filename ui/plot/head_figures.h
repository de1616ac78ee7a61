#pragma once
// The figures of one head, built the same way for the app's views, its exports and
// `qkvlab-cli render`: the head view (one heatmap) and the compare view (learned, the chosen
// configuration, and their difference).
#include <QString>
#include <QStringList>

#include "core/model/attention_config.h"
#include "core/model/attention_trace.h"
#include "ui/plot/heatmap_figure.h"
#include "ui/plot/heatmap_mode.h"

namespace qkv::ui {

struct HeadFigureInput {
    const AttentionTrace* trace = nullptr;    // under `config`
    const AttentionTrace* learned = nullptr;  // the checkpoint as stored (compare figure only)
    QStringList labels;
    AttentionConfig config;
    int layer = 0;
    int head = 0;
    HeatmapMode mode = HeatmapMode::Attention;
    bool causal = true;
};

// "shared-qk", with the options appended: "learned · scale outside · mask self".
QString configTitle(const AttentionConfig& config);
// "Layer 3 · Head 5 · shared-qk · attention"
QString headTitle(int layer, int head, const AttentionConfig& config, HeatmapMode mode);

FigureSpec headFigure(const HeadFigureInput& input);
FigureSpec compareFigure(const HeadFigureInput& input);

}  // namespace qkv::ui
