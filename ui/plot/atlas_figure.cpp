#include "ui/plot/atlas_figure.h"

#include <QFileInfo>
#include <cmath>
#include <limits>

#include "ui/plot/metric_matrices.h"

namespace qkv::ui {
namespace {

const QString kChange = QStringLiteral("change_");

bool isDiverging(const QString& score) {
    return score == QLatin1String("score_symmetry") || score == QLatin1String("directionality");
}

bool isUnbounded(const QString& score) {
    return score == QLatin1String("entropy") || score == QLatin1String("distance");
}

}  // namespace

QString atlasScoreTitle(const QString& score) {
    if (score.startsWith(kChange)) return QObject::tr("Change under %1").arg(score.mid(7));
    static const QHash<QString, QString> titles = {
        {QStringLiteral("previous_token"), QObject::tr("Previous-token score")},
        {QStringLiteral("duplicate_token"), QObject::tr("Duplicate-token score")},
        {QStringLiteral("induction"), QObject::tr("Induction score")},
        {QStringLiteral("first_token"), QObject::tr("First-token (sink) share")},
        {QStringLiteral("self"), QObject::tr("Self share")},
        {QStringLiteral("entropy"), QObject::tr("Entropy (nats)")},
        {QStringLiteral("distance"), QObject::tr("Distance (tokens)")},
        {QStringLiteral("score_symmetry"), QObject::tr("Score symmetry s(S)")},
        {QStringLiteral("directionality"), QObject::tr("Score directionality")}};
    return titles.value(score, score);
}

QString atlasScoreHelp(const QString& score) {
    if (score.startsWith(kChange))
        return QObject::tr(
                   "How far %1 moves each row of the head's attention from the learned "
                   "one: the rows' mean total variation, 0 (none) to 1 (all of it)")
            .arg(score.mid(7));
    static const QHash<QString, QString> help = {
        {QStringLiteral("previous_token"),
         QObject::tr("Attention on the token before the query (TransformerLens)")},
        {QStringLiteral("duplicate_token"),
         QObject::tr("Mass on earlier copies of the query's token")},
        {QStringLiteral("induction"),
         QObject::tr("Mass on the token after an earlier copy of the query's token")},
        {QStringLiteral("first_token"), QObject::tr("Mass on the first token: an attention sink")},
        {QStringLiteral("self"), QObject::tr("Mass on the query's own token")},
        {QStringLiteral("entropy"), QObject::tr("How spread a row is: 0 on one key, ln n uniform")},
        {QStringLiteral("distance"), QObject::tr("How far back the head looks, by its attention")},
        {QStringLiteral("score_symmetry"),
         QObject::tr("1: symmetric scores (i to j as j to i), −1: antisymmetric")},
        {QStringLiteral("directionality"),
         QObject::tr("A few keys stand out for all queries (> 0), or queries (< 0)")}};
    return help.value(score);
}

FigureSpec atlasFigure(const HeadAtlas& atlas, const AtlasProvenance& provenance, int score) {
    const QString name = QString::fromStdString(atlas.scores().at(score));
    HeatmapPanel panel;
    HeatmapData& data = panel.data;
    data.rows = atlas.layers();
    for (int l = 0; l < atlas.layers(); ++l) data.cols = std::max(data.cols, atlas.heads(l));
    data.values.assign(static_cast<size_t>(data.rows) * data.cols,
                       std::numeric_limits<double>::quiet_NaN());
    double largest = 0;
    std::vector<double> values;
    for (int l = 0; l < data.rows; ++l) {
        data.rowLabels.append(QStringLiteral("L%1").arg(l));
        for (int h = 0; h < atlas.heads(l); ++h)
            if (const auto mean = atlas.tally(l, h, score).mean()) {
                data.at(l, h) = *mean;
                values.push_back(*mean);
                largest = std::max(largest, std::abs(*mean));
            }
    }
    for (int h = 0; h < data.cols; ++h) data.colLabels.append(QStringLiteral("H%1").arg(h));
    data.rowTitle = QStringLiteral("layer");
    data.colTitle = QStringLiteral("head");
    data.scaleLabel = atlasScoreTitle(name);
    data.diverging = isDiverging(name);
    data.low = data.diverging ? -1.0 : 0.0;
    data.high = isUnbounded(name) && largest > 0 ? largest : 1.0;
    if (!values.empty()) {
        std::sort(values.begin(), values.end());
        panel.title =
            QObject::tr("median over heads: %1").arg(signedNumber(values[values.size() / 2], 3));
    }
    if (data.rows * data.cols <= kMaxAnnotatedCells) panel.annotationDecimals = 2;
    FigureSpec spec;
    spec.title = QObject::tr("%1 over %2 · %3")
                     .arg(QFileInfo(QString::fromStdString(provenance.model)).fileName(),
                          QFileInfo(QString::fromStdString(provenance.corpus)).fileName(),
                          atlasScoreTitle(name));
    spec.panels.push_back(std::move(panel));
    return spec;
}

}  // namespace qkv::ui
