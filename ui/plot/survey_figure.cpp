#include "ui/plot/survey_figure.h"

#include <qcustomplot.h>

#include <algorithm>

#include "ui/plot/tying_colors.h"

namespace qkv::ui {
namespace {

// Tukey's five numbers without outliers: min, quartiles (linear interpolation), max.
struct FiveNumbers {
    double min, lower, median, upper, max;
};

FiveNumbers fiveNumbers(std::vector<double> values) {
    std::sort(values.begin(), values.end());
    const auto quantile = [&](double q) {
        const double at = q * (values.size() - 1);
        const size_t below = static_cast<size_t>(at);
        const size_t above = std::min(below + 1, values.size() - 1);
        return values[below] + (at - below) * (values[above] - values[below]);
    };
    return {values.front(), quantile(0.25), quantile(0.5), quantile(0.75), values.back()};
}

// matplotlib's tab10 blue and orange, apart in print and for most colour-blind readers.
const QColor kEncoder = tab10Color(0);
const QColor kDecoder = tab10Color(1);

void addPanel(QCPAxisRect* rect, const std::vector<ModelSurvey>& surveys,
              std::vector<double> ModelSurvey::*values, const QString& title) {
    QSharedPointer<QCPAxisTickerText> ticker(new QCPAxisTickerText);
    for (size_t i = 0; i < surveys.size(); ++i) {
        const ModelSurvey& s = surveys[i];
        ticker->addTick(static_cast<double>(i), QString::fromStdString(s.name));
        if ((s.*values).empty()) continue;
        auto* box =
            new QCPStatisticalBox(rect->axis(QCPAxis::atBottom), rect->axis(QCPAxis::atLeft));
        const FiveNumbers f = fiveNumbers(s.*values);
        box->addData(static_cast<double>(i), f.min, f.lower, f.median, f.upper, f.max);
        const QColor color = s.causal ? kDecoder : kEncoder;
        box->setBrush(QColor(color.red(), color.green(), color.blue(), 110));
        box->setPen(QPen(color.darker(130)));
        box->setMedianPen(QPen(Qt::black, 2));
        box->setWidth(0.5);
    }
    QCPAxis* x = rect->axis(QCPAxis::atBottom);
    x->setTicker(ticker);
    x->setTickLabelRotation(surveys.size() > 4 ? 40 : 0);
    x->setRange(-0.6, surveys.size() - 0.4);
    x->setSubTicks(false);
    QCPAxis* y = rect->axis(QCPAxis::atLeft);
    y->setRange(-1.05, 1.05);
    y->setLabel(title);
    y->grid()->setZeroLinePen(QPen(Qt::gray, 1, Qt::DashLine));
}

}  // namespace

void drawSurveyFigure(QCustomPlot* plot, const std::vector<ModelSurvey>& surveys) {
    plot->clearPlottables();
    plot->plotLayout()->clear();
    const QString caption =
        QStringLiteral(
            "W_QK per layer of each model (box: quartiles and median; whiskers: min and max) — "
            "encoders %1, decoders %2")
            .arg(QStringLiteral("blue"), QStringLiteral("orange"));
    auto* title = new QCPTextElement(plot, caption, QFont(plot->font().family(), 11));
    plot->plotLayout()->addElement(0, 0, title);
    auto* panels = new QCPLayoutGrid;
    plot->plotLayout()->addElement(1, 0, panels);
    auto* symmetry = new QCPAxisRect(plot);
    auto* directionality = new QCPAxisRect(plot);
    panels->addElement(0, 0, symmetry);
    panels->addElement(1, 0, directionality);
    // Rotated model names reach past the last box: room for them on the right.
    for (QCPAxisRect* rect : {symmetry, directionality}) {
        rect->setAutoMargins(QCP::msLeft | QCP::msTop | QCP::msBottom);
        rect->setMargins(QMargins(0, 0, 60, 0));
    }
    addPanel(symmetry, surveys, &ModelSurvey::layerSymmetry, QStringLiteral("symmetry s"));
    addPanel(directionality, surveys, &ModelSurvey::layerDirectionality,
             QStringLiteral("directionality d"));
    plot->replot();
}

}  // namespace qkv::ui
