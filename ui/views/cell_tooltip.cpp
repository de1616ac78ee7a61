#include "ui/views/cell_tooltip.h"

#include <cmath>

#include "core/analysis/head_metrics.h"
#include "ui/plot/heatmap_figure.h"

namespace qkv::ui {

QString formatNumber(double value) { return signedNumber(value, std::abs(value) >= 100 ? 1 : 4); }

QString tokenPairHeading(const std::vector<ShownToken>& tokens, int query, int key) {
    return tokenPairHeading(tokens, tokens, query, key);
}

QString tokenPairHeading(const std::vector<ShownToken>& queries,
                         const std::vector<ShownToken>& keys, int query, int key) {
    auto name = [](const std::vector<ShownToken>& tokens, int i) {
        return QStringLiteral("<b>%1</b>&nbsp;(%2)").arg(tokens.at(i).label.toHtmlEscaped()).arg(i);
    };
    return name(queries, query) + QStringLiteral(" → ") + name(keys, key);
}

QString headCellValues(const AttentionTrace& trace, int layer, int head, int query, int key,
                       const KeyMask& mask) {
    QStringList lines;
    if (trace.hasProbabilities(layer, head)) {
        const double a = trace.probabilities(layer, head)(query, key);
        QString masked;
        if (mask.causal && key > query)
            masked = QStringLiteral("a token sees only earlier ones");
        else if (mask.reach > 0)
            masked = QStringLiteral("outside the layer's local window of %1 tokens on either side")
                         .arg(mask.reach);
        else
            masked =
                QStringLiteral("outside the layer's sliding window of %1 tokens").arg(mask.window);
        lines << (mask.hides(query, key)
                      ? QStringLiteral("A<sub>ij</sub> = 0 (masked: %1)").arg(masked)
                      : QStringLiteral("A<sub>ij</sub> = %1").arg(formatNumber(a)));
        if (trace.hasSinks())
            lines << QStringLiteral("sink share of row i = %1 (the row sums to 1 − it)")
                         .arg(
                             formatNumber(sinkShareOfRow(trace.probabilities(layer, head), query)));
    }
    if (trace.hasScores(layer, head) && trace.tokens() != trace.keyTokens()) {  // cross
        lines << QStringLiteral("S<sub>ij</sub> = %1")
                     .arg(formatNumber(trace.scores(layer, head)(query, key)));
    } else if (trace.hasScores(layer, head)) {
        const auto& s = trace.scores(layer, head);
        lines << QStringLiteral("S<sub>ij</sub> = %1 &nbsp; S<sub>ji</sub> = %2")
                     .arg(formatNumber(s(query, key)), formatNumber(s(key, query)));
        lines << QStringLiteral("S<sub>ij</sub> − S<sub>ji</sub> = %1")
                     .arg(formatNumber(s(query, key) - s(key, query)));
    }
    return lines.join(QStringLiteral("<br>"));
}

}  // namespace qkv::ui
