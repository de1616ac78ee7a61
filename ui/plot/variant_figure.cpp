#include "ui/plot/variant_figure.h"

#include <algorithm>

#include "ui/plot/head_matrices.h"

namespace qkv::ui {

FigureSpec variantFigure(const VariantSnapshot& snapshot, HeatmapMode mode) {
    FigureSpec spec;
    spec.title = QStringLiteral("Layer %1 · Head %2 · %3 · each variant as trained")
                     .arg(snapshot.layer)
                     .arg(snapshot.head)
                     .arg(heatmapModeName(mode));
    for (const VariantAttention& v : snapshot.variants) {
        if (!v.trace) continue;
        QString title = v.variant.tying;
        if (v.truncatedFrom)
            title += QStringLiteral(" · first %1 of %2 tokens")
                         .arg(v.tokens.size())
                         .arg(*v.truncatedFrom);
        spec.panels.push_back({headHeatmap(v.trace, v.labels(), v.labels(), snapshot.layer,
                                           snapshot.head, mode, {KeyMask{v.causal, 0}, false}),
                               title, 0});
    }
    if (spec.panels.empty()) return spec;
    double low = spec.panels.front().data.low;
    double high = spec.panels.front().data.high;
    for (const HeatmapPanel& panel : spec.panels) {
        low = std::min(low, panel.data.low);
        high = std::max(high, panel.data.high);
    }
    for (HeatmapPanel& panel : spec.panels) {
        panel.data.low = low;
        panel.data.high = high;
    }
    if (spec.panels.size() > 2) spec.columns = 2;
    return spec;
}

}  // namespace qkv::ui
