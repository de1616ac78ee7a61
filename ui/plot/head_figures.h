#pragma once
// The figures of one head, built the same way for the app's views, its exports and
// `qkvlab-cli render`: the head view (one heatmap) and the compare view (learned, the chosen
// configuration, and their difference).
#include <QString>
#include <QStringList>
#include <memory>
#include <optional>

#include "core/analysis/head_metrics.h"
#include "core/model/architecture.h"
#include "core/model/attention_trace.h"
#include "core/model/w_configuration.h"
#include "ui/plot/heatmap_figure.h"
#include "ui/plot/heatmap_mode.h"

namespace qkv::ui {

struct HeadFigureInput {
    // Shared: the figures read the head's matrices in place, for as long as they are shown.
    std::shared_ptr<const AttentionTrace> trace;    // under `config`
    std::shared_ptr<const AttentionTrace> learned;  // the checkpoint as stored (compare only)
    // File ▸ Compare With…: the compared checkpoint's trace under `config` (compare only; null
    // without one), its name and the open model's.
    std::shared_ptr<const AttentionTrace> compared;
    QString comparedName, modelName;
    QStringList labels;     // rows: the queries' tokens
    QStringList keyLabels;  // columns: the keys' tokens (the source's in cross-attention)
    QString kindName;       // "cross-attention", for the title; empty for self-attention
    WConfiguration config;
    int layer = 0;
    int head = 0;
    HeatmapMode mode = HeatmapMode::Attention;
    KeyMask mask;                      // the layer's own masks
    std::optional<int> truncatedFrom;  // the sentence's token count before cutting to the context
    bool sharedScale = true;  // compare figure: learned and configuration on one colour scale
    QString headName;         // the user's name of the head ("induction"), in the title
    QString layerKind;        // "local, window 4, rotary θ=10000" where layers differ; else empty
    // The Head view's "What the mask hides": where the layer's mask hides keys and the head's
    // scores were captured, the dense counterfactual beside the attention.
    bool showHidden = false;
};

struct TraceSnapshot;
// The input for (layer, head) of a worker result.
HeadFigureInput headFigureInput(const TraceSnapshot& snapshot, int layer, int head,
                                HeatmapMode mode, const KeyMask& mask);

// "decoder", "cross-attention", or empty for a model's own self-attention.
QString attentionKindTitle(AttentionKind kind);
// "shared-qk", with the options appended: "learned · scale outside · mask self".
QString configTitle(const WConfiguration& config);
// "Layer 3 · Head 5 · shared-qk · attention" ("Layer 3 · Head 5 — induction · …" for a named
// head), and " · first 128 of 150 tokens" for a sentence
// cut to the model's context, so that no exported figure hides the cut.
QString headTitle(const HeadFigureInput& input);

FigureSpec headFigure(const HeadFigureInput& input);
// Learned, the configuration, and their difference; with a compared checkpoint instead the open
// model, that checkpoint (both under the configuration), and their difference.
FigureSpec compareFigure(const HeadFigureInput& input);

}  // namespace qkv::ui
