#include "ui/plot/head_figures.h"

#include "core/analysis/hidden_keys.h"
#include "ui/compute/compute_types.h"
#include "ui/plot/head_matrices.h"

namespace qkv::ui {

QString configTitle(const WConfiguration& config) {
    QString title = QString::fromStdString(config.name());
    if (config.scaleOutside) title += QStringLiteral(" · scale outside");
    if (config.maskSelf) title += QStringLiteral(" · mask self");
    return title;
}

namespace {

QString truncationNote(const HeadFigureInput& input) {
    if (!input.truncatedFrom) return {};
    return QStringLiteral(" · first %1 of %2 tokens")
        .arg(input.labels.size())
        .arg(*input.truncatedFrom);
}

// "Layer 3 · Head 5", with the user's name of the head: "Layer 3 · Head 5 — induction".
QString headLabel(const HeadFigureInput& input) {
    QString label = QStringLiteral("Layer %1 · Head %2").arg(input.layer).arg(input.head);
    if (!input.headName.isEmpty()) label += QStringLiteral(" — ") + input.headName;
    return label;
}

}  // namespace

HeadFigureInput headFigureInput(const TraceSnapshot& snapshot, int layer, int head,
                                HeatmapMode mode, const KeyMask& mask) {
    HeadFigureInput input;
    input.trace = snapshot.trace;
    input.learned = snapshot.learned;
    input.compared = snapshot.compared;
    input.comparedName = snapshot.comparedName;
    input.modelName = snapshot.modelName;
    input.labels = snapshot.labels();
    input.keyLabels = snapshot.keyLabels();
    input.kindName = attentionKindTitle(snapshot.kind);
    input.config = snapshot.config;
    input.layer = layer;
    input.head = head;
    input.mode = mode;
    input.mask = mask;
    input.truncatedFrom = snapshot.truncatedFrom;
    return input;
}

QString attentionKindTitle(AttentionKind kind) {
    switch (kind) {
        case AttentionKind::DecoderSelf:
            return QStringLiteral("decoder");
        case AttentionKind::Cross:
            return QStringLiteral("cross-attention");
        case AttentionKind::Self:
            break;
    }
    return {};
}

QString headTitle(const HeadFigureInput& input) {
    const QString kind =
        input.kindName.isEmpty() ? QString() : input.kindName + QStringLiteral(" · ");
    const QString layerKind =
        input.layerKind.isEmpty() ? QString() : QStringLiteral(" (%1)").arg(input.layerKind);
    return kind + headLabel(input) + layerKind +
           QStringLiteral(" · %1 · %2")
               .arg(configTitle(input.config), heatmapModeName(input.mode)) +
           truncationNote(input);
}

FigureSpec headFigure(const HeadFigureInput& input) {
    const HeadMatrixOptions options{input.mask, input.config.scaleOutside};
    FigureSpec spec;
    if (input.trace->layers().at(input.layer).taps.size() > 0) {  // a short convolution
        spec.title = QStringLiteral("Layer %1 · short convolution: each channel's band · %2")
                         .arg(input.layer)
                         .arg(configTitle(input.config));
        spec.panels.push_back({bandHeatmap(input.trace, input.layer), QString(), 0});
        spec.squareCells = false;  // a few taps beside many channels: each column its share
        return spec;
    }
    spec.title = headTitle(input);
    spec.panels.push_back({headHeatmap(input.trace, input.labels, input.keyLabels, input.layer,
                                       input.head, input.mode, options),
                           QString(), 0});
    if (input.showHidden && input.mode == HeatmapMode::Attention &&
        (hidesKeys(input.mask) || selectedKeys(*input.trace, input.layer)) &&
        input.trace->hasScores(input.layer, input.head)) {
        spec.panels.front().title = QStringLiteral("the model's attention");
        spec.panels.push_back(
            {hiddenKeysHeatmap(input.trace, input.labels, input.keyLabels, input.layer, input.head,
                               input.mask, input.config.maskSelf),
             selectedKeys(*input.trace, input.layer)
                 ? QStringLiteral("dense counterfactual: the indexer's choice lifted")
                 : QStringLiteral("dense counterfactual: the mask lifted"),
             0});
        return spec;
    }
    // Falcon-H1: the Mamba-2 heads beside the attention, dealt out over its heads (h, h + H, …),
    // so that stepping through the attention heads shows each Mamba head once; one scale.
    const int attentionHeads = input.trace->headCount(input.layer),
              mambaHeads = besideHeadCount(*input.trace, input.layer);
    if (mambaHeads > 0)
        spec.panels.front().title = QStringLiteral("attention head %1").arg(input.head);
    for (int m = input.head; m < mambaHeads && attentionHeads > 0; m += attentionHeads)
        spec.panels.push_back(
            {besideHeatmap(input.trace, input.labels, input.keyLabels, input.layer, m),
             QStringLiteral("Mamba-2 head %1 (beside)").arg(m), 1});
    return spec;
}

namespace {

// The head in the open model and in the compared checkpoint, both under the configuration, and
// the compared one less the open one.
FigureSpec checkpointsFigure(const HeadFigureInput& input) {
    const HeadMatrixOptions options{input.mask, input.config.scaleOutside};
    HeatmapData ours = headHeatmap(input.trace, input.labels, input.keyLabels, input.layer,
                                   input.head, input.mode, options);
    HeatmapData theirs = headHeatmap(input.compared, input.labels, input.keyLabels, input.layer,
                                     input.head, input.mode, options);
    HeatmapData difference = differenceHeatmap(theirs, ours);
    if (input.sharedScale) shareRange(ours, theirs);
    FigureSpec spec;
    spec.title = headLabel(input) +
                 QStringLiteral(" · %1 · %2 · %3 vs %4")
                     .arg(configTitle(input.config), heatmapModeName(input.mode), input.modelName,
                          input.comparedName) +
                 truncationNote(input);
    const int theirGroup = input.sharedScale ? 0 : 1;
    spec.panels.push_back({std::move(ours), input.modelName, 0});
    spec.panels.push_back({std::move(theirs), input.comparedName, theirGroup});
    spec.panels.push_back({std::move(difference),
                           input.comparedName + QStringLiteral(" − ") + input.modelName,
                           theirGroup + 1});
    return spec;
}

}  // namespace

FigureSpec compareFigure(const HeadFigureInput& input) {
    if (input.compared) return checkpointsFigure(input);
    HeatmapData learned = headHeatmap(input.learned, input.labels, input.keyLabels, input.layer,
                                      input.head, input.mode, {input.mask, false});
    HeatmapData chosen =
        headHeatmap(input.trace, input.labels, input.keyLabels, input.layer, input.head, input.mode,
                    {input.mask, input.config.scaleOutside});
    HeatmapData difference = differenceHeatmap(chosen, learned);
    if (input.sharedScale) shareRange(learned, chosen);
    const QString name = configTitle(input.config);
    FigureSpec spec;
    spec.title = (input.kindName.isEmpty() ? QString() : input.kindName + QStringLiteral(" · ")) +
                 headLabel(input) +
                 QStringLiteral(" · %1 · learned vs %2").arg(heatmapModeName(input.mode), name) +
                 truncationNote(input);
    // Separate scales show the pattern of a configuration whose values shrink (scale outside
    // the softmax), at the cost of comparing colours across the two panels.
    const int chosenGroup = input.sharedScale ? 0 : 1;
    spec.panels.push_back({std::move(learned), QStringLiteral("learned"), 0});
    spec.panels.push_back({std::move(chosen), name, chosenGroup});
    spec.panels.push_back(
        {std::move(difference), name + QStringLiteral(" − learned"), chosenGroup + 1});
    return spec;
}

}  // namespace qkv::ui
