#include "ui/plot/tick_labels.h"

#include <qcustomplot.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <numbers>
#include <vector>

namespace qkv::ui {
namespace {

constexpr int kMaxLabelChars = 14;

QString elided(const QString& label) {
    return label.size() <= kMaxLabelChars ? label : label.left(kMaxLabelChars - 1) + u'…';
}

int tickFontSize(int count) { return count <= 24 ? 9 : count <= 48 ? 8 : 7; }

// The pixels a label needs along its axis in `font`.
double labelNeed(const QFont& font, const QStringList& labels, LabelRun run) {
    const QFontMetrics metrics(font);
    const double lineHeight = metrics.height() + 1;
    if (run == LabelRun::Stacked || run == LabelRun::Standing) return lineHeight;
    if (run == LabelRun::Slanted) return lineHeight / std::sin(std::numbers::pi / 3);
    int widest = 0;
    for (const QString& label : labels)
        widest = std::max(widest, metrics.horizontalAdvance(elided(label)));
    return widest + 6.0;
}

}  // namespace

void styleLabelAxis(QCPAxis* axis, int count) {
    axis->setSubTicks(false);
    axis->setTickLength(0, 3);
    axis->grid()->setVisible(false);
    QFont font = axis->tickLabelFont();
    font.setPointSize(tickFontSize(count));
    axis->setTickLabelFont(font);
}

void setLabelTicks(QCPAxis* axis, const QStringList& labels, int stride) {
    auto ticker = QSharedPointer<QCPAxisTickerText>::create();
    for (int i = 0; i < labels.size(); i += stride) ticker->addTick(i, elided(labels[i]));
    axis->setTicker(ticker);
}

int strideFor(double needPixels, double cellPixels) {
    if (!(cellPixels > 0)) return 1;
    const double need = needPixels / cellPixels;
    for (int decade = 1; decade < INT_MAX / 10; decade *= 10)
        for (int step : {decade, 2 * decade, 5 * decade})
            if (step >= need) return step;
    return INT_MAX;
}

bool needsRotation(const QStringList& labels) {
    if (labels.size() > 12) return true;
    return std::any_of(labels.begin(), labels.end(), [](const QString& l) { return l.size() > 3; });
}

TickFit fitTicks(QFont font, const QStringList& labels, LabelRun run, double cellPixels) {
    constexpr int kSmallestPoints = 6;
    const int own = tickFontSize(static_cast<int>(labels.size()));
    std::vector<LabelRun> runs{run};
    if (run == LabelRun::Slanted) runs.push_back(LabelRun::Standing);
    for (LabelRun tried : runs)
        for (int points = own; points >= kSmallestPoints; --points) {
            font.setPointSize(points);
            if (labelNeed(font, labels, tried) <= cellPixels) return {points, 1, tried};
        }
    font.setPointSize(own);
    return {own, strideFor(labelNeed(font, labels, run), cellPixels), run};
}

bool applyTickFit(QCPAxis* axis, const QStringList& labels, TickFit fit, int& stride) {
    QFont font = axis->tickLabelFont();
    const double rotation = fit.run == LabelRun::Slanted    ? 60
                            : fit.run == LabelRun::Standing ? 90
                                                            : 0;
    const bool columns = axis->axisType() == QCPAxis::atBottom;
    if (fit.stride == stride && fit.points == font.pointSize() &&
        (!columns || rotation == axis->tickLabelRotation()))
        return false;
    font.setPointSize(fit.points);
    axis->setTickLabelFont(font);
    if (columns) axis->setTickLabelRotation(rotation);
    stride = fit.stride;
    setLabelTicks(axis, labels, stride);
    return true;
}

}  // namespace qkv::ui
