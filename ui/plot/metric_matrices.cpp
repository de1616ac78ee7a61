#include "ui/plot/metric_matrices.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace qkv::ui {

const std::vector<HeadMetricInfo>& headMetricInfos() {
    static const std::vector<HeadMetricInfo> infos = {
        {HeadMetric::WqkSymmetry, "wqk-symmetry", "W_QK symmetry s(W_Q W_Kᵀ)",
         "1 symmetric bilinear form, −1 skew, ≈0 random", true},
        {HeadMetric::WqkDirectionality, "wqk-directionality", "W_QK directionality",
         "(C − R)/(C + R): > 0 a few keys stand out in W_Q W_Kᵀ, < 0 a few queries, 0 symmetric",
         true},
        {HeadMetric::ScoreSymmetry, "score-symmetry", "score symmetry s(S)",
         "of this sentence's raw scores: 1 symmetric, −1 skew", true},
        {HeadMetric::QkSimilarity, "qk-similarity", "Q/K subspace similarity",
         "mean cos² of the principal angles between W_Q and W_K (≈ d_k/d_model if random)", false},
        {HeadMetric::QvSimilarity, "qv-similarity", "Q/V subspace similarity",
         "mean cos² of the principal angles between W_Q and W_V", false},
        {HeadMetric::KvSimilarity, "kv-similarity", "K/V subspace similarity",
         "mean cos² of the principal angles between W_K and W_V", false},
        {HeadMetric::EigenPositivity, "eigen-positivity", "eigenvalue positivity",
         "Σ Re λ / Σ |λ| of W_Q W_Kᵀ: 1 positive semi-definite (tokens prefer themselves)", true},
        {HeadMetric::WqkRank, "wqk-rank", "rank of W_Q W_Kᵀ", "at most d_k", false},
        {HeadMetric::OvCopying, "ov-copying", "OV copying score",
         "Σ Re λ / Σ |λ| of W_E W_V W_O W_U: 1 the head copies the token it attends to", true},
        {HeadMetric::OvRank, "ov-rank", "rank of W_OV = W_V W_O", "at most d_k", false},
        {HeadMetric::SinkShare, "sink-share", "attention sink share",
         "mean over the sentence's rows of what the head's sink took, 1 − Σ_j A_ij (gpt-oss)",
         false},
        {HeadMetric::MeanDistance, "mean-distance", "mean attention distance",
         "of this sentence: tokens from each query to its keys, weighed by |A_ij| (implicit maps "
         "too)",
         false},
        {HeadMetric::SelfShare, "self-share", "self share",
         "of this sentence: the mean of |A_ii| / Σ_j |A_ij|, what each query gives its own token",
         false},
        {HeadMetric::DroppedMass, "dropped-mass", "mass the mask drops",
         "of this sentence: the mean over queries of what the dense counterfactual (the mask "
         "lifted) puts on the keys a sliding window, chunk or sparse attention's indexer hides",
         false},
        {HeadMetric::IndexerAgreement, "indexer-agreement", "indexer agreement",
         "of this sentence: the mean share of the keys the indexer kept that are among the head's "
         "own top-k scores (1 the same keys)",
         false},
        {HeadMetric::AttentionChange, "attention-change", "attention change (compared model)",
         "largest ½ Σ_j |A_ij − B_ij| of a row between the two models: 0 same, 1 disjoint", false},
        {HeadMetric::WqkSymmetryChange, "wqk-symmetry-change",
         "W_QK symmetry change (compared model)",
         "s(W_Q W_Kᵀ) of the compared model less the open model's", true},
    };
    return infos;
}

bool isComparisonMetric(HeadMetric metric) {
    return metric == HeadMetric::AttentionChange || metric == HeadMetric::WqkSymmetryChange;
}

bool readsTheSentence(HeadMetric metric) {
    return metric == HeadMetric::ScoreSymmetry || metric == HeadMetric::SinkShare ||
           metric == HeadMetric::DroppedMass || metric == HeadMetric::IndexerAgreement ||
           metric == HeadMetric::MeanDistance || metric == HeadMetric::SelfShare ||
           isComparisonMetric(metric);
}

const HeadMetricInfo& headMetricInfo(HeadMetric metric) {
    for (const auto& info : headMetricInfos())
        if (info.metric == metric) return info;
    return headMetricInfos().front();
}

std::optional<double> headMetricValue(const HeadMetrics& head, HeadMetric metric) {
    switch (metric) {
        case HeadMetric::WqkSymmetry:
            return head.wqkSymmetry;
        case HeadMetric::ScoreSymmetry:
            return head.scoreSymmetry;
        case HeadMetric::QkSimilarity:
            return head.qkSimilarity;
        case HeadMetric::QvSimilarity:
            return head.qvSimilarity;
        case HeadMetric::KvSimilarity:
            return head.kvSimilarity;
        case HeadMetric::EigenPositivity:
            return head.eigenPositivity;
        case HeadMetric::WqkRank:
            return head.wqkRank;
        case HeadMetric::WqkDirectionality:
            return head.wqkDirectionality;
        case HeadMetric::OvCopying:
            return head.ovCopyingScore;
        case HeadMetric::OvRank:
            return head.ovRank;
        case HeadMetric::SinkShare:
            return head.sinkShare;
        case HeadMetric::MeanDistance:
            return head.meanDistance;
        case HeadMetric::SelfShare:
            return head.selfShare;
        case HeadMetric::DroppedMass:
            return head.droppedMass;
        case HeadMetric::IndexerAgreement:
            return head.indexerAgreement;
        case HeadMetric::AttentionChange:
            return head.attentionChange;
        case HeadMetric::WqkSymmetryChange:
            return head.wqkSymmetryChange;
    }
    return std::nullopt;
}

HeatmapData metricHeatmap(const ModelMetrics& metrics, HeadMetric metric, int headDim) {
    const HeadMetricInfo& info = headMetricInfo(metric);
    HeatmapData data;
    data.rows = static_cast<int>(metrics.layers.size());
    data.cols = 0;  // the most heads a layer has (a hybrid's first layers may have none)
    for (const LayerMetrics& layer : metrics.layers)
        data.cols = std::max(data.cols, static_cast<int>(layer.heads.size()));
    data.values.assign(static_cast<size_t>(data.rows) * data.cols,
                       std::numeric_limits<double>::quiet_NaN());
    for (int l = 0; l < data.rows; ++l) {
        data.rowLabels.append(QStringLiteral("L%1").arg(l));
        const auto& heads = metrics.layers[l].heads;
        for (int h = 0; h < data.cols && h < static_cast<int>(heads.size()); ++h)
            if (const auto v = headMetricValue(heads[h], metric)) data.at(l, h) = *v;
    }
    for (int h = 0; h < data.cols; ++h) data.colLabels.append(QStringLiteral("H%1").arg(h));
    data.rowTitle = QStringLiteral("layer");
    data.colTitle = QStringLiteral("head");
    data.scaleLabel = info.title;
    data.diverging = info.diverging;
    data.low = info.diverging ? -1.0 : 0.0;
    const bool rank = metric == HeadMetric::WqkRank || metric == HeadMetric::OvRank;
    data.high = rank ? std::max(headDim, 1) : 1.0;
    // Unbounded ones take their largest value: a change, a distance in tokens.
    if (isComparisonMetric(metric) || metric == HeadMetric::MeanDistance) {
        double largest = 0;
        for (double v : data.values)
            if (!std::isnan(v)) largest = std::max(largest, std::abs(v));
        data.high = largest > 0 ? largest : 1.0;
        data.low = info.diverging ? -data.high : 0.0;
    }
    return data;
}

FigureSpec overviewFigure(const ModelMetrics& metrics, HeadMetric metric, const QString& subtitle,
                          int headDim) {
    FigureSpec spec;
    spec.title = subtitle + QStringLiteral(" · ") + headMetricInfo(metric).title;
    HeatmapPanel panel;
    panel.data = metricHeatmap(metrics, metric, headDim);
    // The panel's one number summarises what its cells show.
    std::vector<double> values;
    for (double v : panel.data.values)
        if (!std::isnan(v)) values.push_back(v);
    if (metric == HeadMetric::WqkSymmetry) {
        panel.title = QStringLiteral("median over layers of s(W_Q W_Kᵀ): %1")
                          .arg(signedNumber(metrics.medianLayerWqkSymmetry, 3));
    } else if (!values.empty() && isComparisonMetric(metric)) {
        double largest = 0;
        for (double v : values) largest = std::abs(v) > std::abs(largest) ? v : largest;
        panel.title = QStringLiteral("largest over heads: %1").arg(signedNumber(largest, 3));
    } else if (!values.empty()) {
        panel.title = QStringLiteral("median over heads: %1").arg(signedNumber(median(values), 3));
    }
    // Numbers inside the cells while they are large enough to read.
    if (panel.data.rows * panel.data.cols <= kMaxAnnotatedCells)
        panel.annotationDecimals = metric == HeadMetric::WqkRank ? 0 : 2;
    spec.panels.push_back(std::move(panel));
    return spec;
}

}  // namespace qkv::ui
