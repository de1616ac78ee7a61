#include "ui/plot/neuron_figure.h"

#include <cmath>
#include <limits>

namespace qkv::ui {
namespace {

constexpr double kNoValue = std::numeric_limits<double>::quiet_NaN();
// Values are printed in the cells of the one-column panels up to this many keys.
constexpr int kMaxAnnotatedRows = 40;

enum class Range { Signed, Probability, Magnitude };

// Row 0 the query token, then its keys: the rows of every panel.
QStringList rowLabelsOf(const NeuronFigureInput& in) {
    QStringList labels{QStringLiteral("q ▸ %1").arg(in.queryLabel)};
    for (const QString& key : in.keyLabels) labels << QStringLiteral("k ▸ %1").arg(key);
    return labels;
}

HeatmapData column(const NeuronFigureInput& in, const QString& title, double header,
                   const Eigen::VectorXd& values, Range range) {
    HeatmapData data;
    data.rows = static_cast<int>(values.size()) + 1;
    data.cols = 1;
    data.values.push_back(header);
    for (Eigen::Index j = 0; j < values.size(); ++j) data.values.push_back(values(j));
    data.rowLabels = rowLabelsOf(in);
    data.colLabels << title;
    data.diverging = range == Range::Signed;
    if (range == Range::Signed) {
        setSymmetricRange(data, 1e-9);
    } else {
        data.low = 0;
        data.high = range == Range::Probability ? 1.0 : std::max(maxAbsValue(data), 1e-9);
    }
    return data;
}

}  // namespace

FigureSpec neuronFigure(const NeuronFigureInput& in) {
    const NeuronRow& r = in.row;
    const int keys = static_cast<int>(r.keys.rows()), dims = static_cast<int>(r.keys.cols());
    const QStringList rowLabels = rowLabelsOf(in);
    QStringList dimLabels;
    for (int t = 0; t < dims; ++t) dimLabels << QString::number(t);

    auto vectors = [&](bool withQuery, const Eigen::MatrixXd& rows) {
        HeatmapData data;
        data.rows = keys + 1;
        data.cols = dims;
        data.values.assign(static_cast<size_t>(data.rows) * dims, kNoValue);
        for (int t = 0; t < dims; ++t) {
            if (withQuery) data.at(0, t) = r.query(t);
            for (int j = 0; j < keys; ++j) data.at(j + 1, t) = rows(j, t);
        }
        data.rowLabels = rowLabels;
        data.colLabels = dimLabels;
        data.colTitle = QStringLiteral("dimension (d_k)");
        data.diverging = true;
        setSymmetricRange(data, 1e-9);
        return data;
    };
    FigureSpec spec;
    spec.title = in.title;
    spec.squareCells = false;  // d_k-wide panels beside one-column ones
    // Four colour scales, not six: a scale per panel would take the room the d_k-wide panels
    // need. The vectors and their products share one, and q·k shares one with S = c·q·k, so the
    // scaling shows as a paler column.
    auto add = [&](HeatmapData data, const QString& title, int group, bool annotate) {
        HeatmapPanel panel{std::move(data), title, group, -1};
        if (annotate && keys <= kMaxAnnotatedRows) panel.annotationDecimals = 2;
        spec.panels.push_back(std::move(panel));
    };
    HeatmapData vectorsData = vectors(true, r.keys), productsData = vectors(false, r.products);
    shareRange(vectorsData, productsData);
    add(std::move(vectorsData), QStringLiteral("q_i and each k_j"), 0, false);
    add(std::move(productsData), QStringLiteral("q_i ∘ k_j (row sums: q·k)"), 0, false);
    const Eigen::VectorXd& scores = r.scores.size() > 0 ? r.scores : r.scaled;
    HeatmapData dots = column(in, QStringLiteral("q·k"), kNoValue, r.dots, Range::Signed);
    HeatmapData scored = column(in, QStringLiteral("S"), kNoValue, scores, Range::Signed);
    shareRange(dots, scored);
    add(std::move(dots), QStringLiteral("q·k"), 1, true);
    add(std::move(scored), QStringLiteral("S = %1·q·k").arg(in.scale, 0, 'g', 3), 1, true);
    add(column(in, QStringLiteral("A"), kNoValue, r.probabilities, Range::Probability),
        QStringLiteral("A"), 2, true);
    Eigen::VectorXd source(keys);
    for (int j = 0; j < keys; ++j) source(j) = in.norms.source.at(j);
    add(column(in, QStringLiteral("‖·W_O‖"), in.norms.written.at(in.query), source,
               Range::Magnitude),
        QStringLiteral("OV norm"), 3, true);
    return spec;
}

}  // namespace qkv::ui
