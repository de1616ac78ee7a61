#include "ui/plot/head_figures.h"

#include "ui/plot/head_matrices.h"

namespace qkv::ui {

QString configTitle(const AttentionConfig& config) {
    QString title = QString::fromStdString(config.name());
    if (config.scaleOutside) title += QStringLiteral(" · scale outside");
    if (config.maskSelf) title += QStringLiteral(" · mask self");
    return title;
}

QString headTitle(int layer, int head, const AttentionConfig& config, HeatmapMode mode) {
    return QStringLiteral("Layer %1 · Head %2 · %3 · %4")
        .arg(layer)
        .arg(head)
        .arg(configTitle(config), heatmapModeName(mode));
}

FigureSpec headFigure(const HeadFigureInput& input) {
    const HeadMatrixOptions options{input.causal, input.config.scaleOutside};
    FigureSpec spec;
    spec.title = headTitle(input.layer, input.head, input.config, input.mode);
    spec.panels.push_back(
        {headHeatmap(*input.trace, input.labels, input.layer, input.head, input.mode, options),
         QString(), 0});
    return spec;
}

FigureSpec compareFigure(const HeadFigureInput& input) {
    HeatmapData learned = headHeatmap(*input.learned, input.labels, input.layer, input.head,
                                      input.mode, {input.causal, false});
    HeatmapData chosen = headHeatmap(*input.trace, input.labels, input.layer, input.head,
                                     input.mode, {input.causal, input.config.scaleOutside});
    HeatmapData difference = differenceHeatmap(chosen, learned);
    shareRange(learned, chosen);
    const QString name = configTitle(input.config);
    FigureSpec spec;
    spec.title = QStringLiteral("Layer %1 · Head %2 · %3 · learned vs %4")
                     .arg(input.layer)
                     .arg(input.head)
                     .arg(heatmapModeName(input.mode), name);
    spec.panels.push_back({std::move(learned), QStringLiteral("learned"), 0});
    spec.panels.push_back({std::move(chosen), name, 0});
    spec.panels.push_back({std::move(difference), name + QStringLiteral(" − learned"), 1});
    return spec;
}

}  // namespace qkv::ui
