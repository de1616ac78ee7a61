#include "ui/plot/head_matrices.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>

#include "core/analysis/head_metrics.h"
#include "core/analysis/hidden_keys.h"
#include "core/util/error.h"

namespace qkv::ui {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
// The token part of a row label that also gives the row's sink share: with " 0.28" it stays
// within the 14 characters an axis label shows.
constexpr int kSinkLabelToken = 9;

HeatmapData frame(int rows, int cols, const QStringList& rowLabels, const QStringList& colLabels) {
    HeatmapData data;
    data.rows = rows;
    data.cols = cols;
    data.rowLabels = rowLabels;
    data.colLabels = colLabels;
    data.rowTitle = QStringLiteral("query (attending)");
    data.colTitle = QStringLiteral("key (attended to)");
    return data;
}

// One of the head's matrices, read in place. It holds the trace, so that a figure can outlive the
// snapshot, and indexes the floats directly: sampling reads millions of cells per redraw.
struct TraceMatrix {
    std::shared_ptr<const AttentionTrace> owner;
    const float* data;
    size_t stride;

    TraceMatrix(std::shared_ptr<const AttentionTrace> trace, const RowMatrixXf& matrix)
        : owner(std::move(trace)), data(matrix.data()), stride(matrix.cols()) {}
    float operator()(int i, int j) const { return data[i * stride + j]; }
};

// An implicit map (a linear or Mamba-2 layer's, or Falcon-H1's Mamba-2 mixer's) in `data`: signed,
// causal, centred at zero; Mamba-2's skip D said in the scale's label.
HeatmapData implicitHeatmap(HeatmapData data, const std::shared_ptr<const AttentionTrace>& trace,
                            const LayerTrace& layer, int head) {
    const TraceMatrix a(trace, layer.probabilities.at(head));
    const auto value = [a](int i, int j) { return static_cast<double>(a(i, j)); };
    data.cells =
        heatmapCells([a](int i, int j) { return j > i ? kNaN : static_cast<double>(a(i, j)); });
    data.diverging = true;
    data.scaleLabel =
        head < static_cast<int>(layer.skip.size())
            ? QStringLiteral("implicit attention M_ij (y = M·x + D·x, D = %1; signed)")
                  .arg(layer.skip[head], 0, 'g', 4)
            : QStringLiteral("implicit attention A_ij (output = A·v; signed)");
    setSymmetricExtent(data, largestMagnitude(data.rows, data.cols, value));
    return data;
}

// Each row's label cut to fit the axis, then " 0.28": a number per query beside its token.
void appendRowNumbers(QStringList& labels, const std::vector<double>& numbers) {
    for (int i = 0; i < static_cast<int>(numbers.size()) && i < labels.size(); ++i) {
        QString& label = labels[i];
        if (label.size() > kSinkLabelToken) label = label.left(kSinkLabelToken - 1) + u'…';
        label += QStringLiteral(" %1").arg(numbers[i], 0, 'f', 2);
    }
}

}  // namespace

HeatmapData besideHeatmap(const std::shared_ptr<const AttentionTrace>& trace,
                          const QStringList& rowLabels, const QStringList& colLabels, int layer,
                          int mambaHead) {
    const std::vector<LayerTrace>& beside = trace->layers().at(layer).beside;
    if (beside.empty()) throw Error("layer " + std::to_string(layer) + " has no mixer beside it");
    return implicitHeatmap(frame(trace->tokens(), trace->keyTokens(), rowLabels, colLabels), trace,
                           beside.front(), mambaHead);
}

int besideHeadCount(const AttentionTrace& trace, int layer) {
    const std::vector<LayerTrace>& beside = trace.layers().at(layer).beside;
    return beside.empty() ? 0 : static_cast<int>(beside.front().probabilities.size());
}

HeatmapData headHeatmap(const std::shared_ptr<const AttentionTrace>& trace,
                        const QStringList& rowLabels, const QStringList& colLabels, int layer,
                        int head, HeatmapMode mode, const HeadMatrixOptions& options) {
    const int n = trace->tokens(), keys = trace->keyTokens();
    HeatmapData data = frame(n, keys, rowLabels, colLabels);
    if (n != keys && mode == HeatmapMode::Asymmetry) mode = HeatmapMode::Scores;
    if (trace->isImplicit(layer))  // no scores: the map itself, signed, on a diverging scale
        return implicitHeatmap(std::move(data), trace, trace->layers()[layer], head);
    if (mode == HeatmapMode::Attention) {
        const TraceMatrix a(trace, trace->probabilities(layer, head));
        const KeyMask mask = options.mask;
        // Sparse attention: the keys its indexer did not keep are hidden as a mask's are (the
        // lambda holds the trace, and with it the kept keys).
        const std::vector<std::vector<int>>* kept = selectedKeys(*trace, layer);
        data.cells = heatmapCells([a, mask, trace, kept](int i, int j) {
            const bool dropped = kept && !keeps(*kept, i, j);
            return mask.hides(i, j) || dropped ? kNaN : static_cast<double>(a(i, j));
        });
        double largest = 0;
        if (options.scaleOutside)
            for (int i = 0; i < n; ++i)
                for (int j = 0; j < keys; ++j)
                    if (!mask.hides(i, j))
                        largest = std::max(largest, static_cast<double>(a(i, j)));
        // With attention sinks a row sums to less than one: the sink took the rest, which each
        // row's label gives beside the heatmap.
        data.scaleLabel = trace->hasSinks()
                              ? QStringLiteral("attention A_ij (rows sum to 1 − sink)")
                              : QStringLiteral("attention A_ij");
        if (trace->hasSinks()) {  // "token 0.28": the share shows beside the cut token
            appendRowNumbers(data.rowLabels, sinkShares(trace->probabilities(layer, head)));
            data.rowTitle = QStringLiteral("query (attending) and its row's sink share");
        }
        // Gated attention: how much of the head's output each query lets through.
        if (const std::vector<float> gate = trace->outputGate(layer, head); !gate.empty()) {
            appendRowNumbers(data.rowLabels, std::vector<double>(gate.begin(), gate.end()));
            data.rowTitle = QStringLiteral("query (attending) and its mean σ(gate)");
        }
        data.high = largest > 0 ? largest : 1.0;
        return data;
    }
    const TraceMatrix s(trace, trace->scores(layer, head));
    const auto score = [s](int i, int j) { return static_cast<double>(s(i, j)); };
    const double largestScore = largestMagnitude(n, keys, score);
    data.diverging = true;
    if (mode == HeatmapMode::Scores) {
        data.cells = heatmapCells(score);
        data.scaleLabel = QStringLiteral("score S_ij");
        setSymmetricExtent(data, largestScore);
    } else {
        // S − Sᵀ is computed for the cells shown rather than kept: the scores are in the trace.
        const auto asymmetry = [s](int i, int j) { return static_cast<double>(s(i, j) - s(j, i)); };
        data.cells = heatmapCells(asymmetry);
        data.scaleLabel = QStringLiteral("S_ij − S_ji");
        setSymmetricExtent(data, std::max(largestMagnitude(n, n, asymmetry), 1e-3 * largestScore));
    }
    return data;
}

HeatmapData hiddenKeysHeatmap(const std::shared_ptr<const AttentionTrace>& trace,
                              const QStringList& rowLabels, const QStringList& colLabels, int layer,
                              int head, const KeyMask& mask, bool maskSelf) {
    const int n = trace->tokens(), keys = trace->keyTokens();
    HeatmapData data = frame(n, keys, rowLabels, colLabels);
    auto hidden = std::make_shared<const HiddenKeys>(
        whatTheMaskHides(trace->scores(layer, head), trace->probabilities(layer, head), mask,
                         maskSelf, trace->hasSinks(), selectedKeys(*trace, layer)));
    const KeyMask lifted{mask.causal};
    double largest = 0;
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < keys; ++j) largest = std::max(largest, double(hidden->dense(i, j)));
    data.cells = heatmapCells([hidden, lifted](int i, int j) {
        return lifted.hides(i, j) ? kNaN : static_cast<double>(hidden->dense(i, j));
    });
    appendRowNumbers(data.rowLabels, hidden->dropped);
    data.rowTitle = QStringLiteral("query (attending) and the mass its mask drops");
    data.scaleLabel = QStringLiteral("dense counterfactual A′_ij (not the model's)");
    data.high = std::max(1.0, largest);  // probabilities, beside the model's on one scale
    return data;
}

HeatmapData bandHeatmap(const std::shared_ptr<const AttentionTrace>& trace, int layer) {
    const RowMatrixXf& taps = trace->layers().at(layer).taps;
    if (taps.size() == 0) throw Error("layer " + std::to_string(layer) + " has no band captured");
    const int channels = static_cast<int>(taps.rows()), kernel = static_cast<int>(taps.cols());
    QStringList rows, cols;
    for (int c = 0; c < channels; ++c) rows << QStringLiteral("ch %1").arg(c);
    for (int k = 0; k < kernel; ++k)
        cols << (k == kernel - 1 ? QStringLiteral("t")
                                 : QStringLiteral("t−%1").arg(kernel - 1 - k));
    HeatmapData data = frame(channels, kernel, rows, cols);
    data.rowTitle = QStringLiteral("channel");
    data.colTitle = QStringLiteral("token the tap weighs");
    const TraceMatrix w(trace, taps);
    const auto value = [w](int i, int j) { return static_cast<double>(w(i, j)); };
    data.cells = heatmapCells(value);
    data.diverging = true;
    data.scaleLabel = QStringLiteral("tap w (y_t = C_t·Σ w·(B·x) over the band; signed)");
    setSymmetricExtent(data, largestMagnitude(channels, kernel, value));
    return data;
}

HeatmapData differenceHeatmap(const HeatmapData& config, const HeatmapData& learned) {
    HeatmapData data = config;
    data.values = std::vector<double>();
    // Kept as one float matrix (floats, as the matrices compared) rather than computed for the
    // cells shown: each cell would cost a virtual read of either panel, and a whole 4096-token
    // window samples 16 million cells on every zoom. Half the size of the doubles it replaces;
    // only the Compare view has one.
    auto difference = std::make_shared<RowMatrixXf>(data.rows, data.cols);
    double largest = 0, largestInput = 0;
    for (int i = 0; i < data.rows; ++i)
        for (int j = 0; j < data.cols; ++j) {
            const double a = config.at(i, j), b = learned.at(i, j), d = a - b;
            (*difference)(i, j) = static_cast<float>(d);
            if (std::isfinite(d)) largest = std::max(largest, std::abs(d));
            for (double v : {a, b})
                if (std::isfinite(v)) largestInput = std::max(largestInput, std::abs(v));
        }
    data.cells =
        heatmapCells([difference = std::shared_ptr<const RowMatrixXf>(std::move(difference))](
                         int i, int j) { return static_cast<double>((*difference)(i, j)); });
    data.diverging = true;
    data.scaleLabel = QStringLiteral("difference");
    setSymmetricExtent(data, std::max(largest, 1e-3 * largestInput));
    return data;
}

}  // namespace qkv::ui
