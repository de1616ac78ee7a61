#include "ui/views/space_view.h"

#include <qcustomplot.h>

#include <QLabel>
#include <QStackedLayout>

#include "core/analysis/head_vectors.h"
#include "ui/document/lab_document.h"
#include "ui/plot/head_figures.h"

namespace qkv::ui {
namespace {

// Token names beside the markers up to this many tokens; beyond, the tooltip-free cloud alone.
constexpr int kMaxLabelledTokens = 80;
// matplotlib's tab10 blue (queries) and orange (keys), apart for most colour-blind readers.
const QColor kQueryColor(0x1f, 0x77, 0xb4);
const QColor kKeyColor(0xff, 0x7f, 0x0e);

// A curve without lines keeps the points in token order (a graph would sort them by x).
QCPCurve* scatter(QCustomPlot* plot, const QString& name, QCPScatterStyle style) {
    auto* curve = new QCPCurve(plot->xAxis, plot->yAxis);
    curve->setName(name);
    curve->setLineStyle(QCPCurve::lsNone);
    curve->setScatterStyle(style);
    return curve;
}

}  // namespace

SpaceView::SpaceView(LabDocument& document, QWidget* parent) : DocumentView(document, parent) {
    auto* stack = new QStackedLayout(this);
    m_placeholder = new QLabel(this);
    m_placeholder->setAlignment(Qt::AlignCenter);
    m_placeholder->setWordWrap(true);
    m_placeholder->setStyleSheet(QStringLiteral("color: palette(mid);"));
    m_plot = new QCustomPlot(this);
    m_plot->setObjectName(QStringLiteral("spacePlot"));
    stack->addWidget(m_placeholder);
    stack->addWidget(m_plot);
    connectRefresh();
    connect(&document, &LabDocument::headChanged, this, &SpaceView::scheduleRefresh);
}

QCPCurve* SpaceView::cloud(int which) const {
    return qobject_cast<QCPCurve*>(m_plot->plottable(which));
}

bool SpaceView::isShowingFigure() const { return !m_plot->isHidden(); }
QString SpaceView::placeholderText() const {
    return isShowingFigure() ? QString() : m_placeholder->text();
}

void SpaceView::showPlaceholder(const QString& text) {
    m_placeholder->setText(text);
    static_cast<QStackedLayout*>(layout())->setCurrentWidget(m_placeholder);
}

void SpaceView::refresh() {
    const LabDocument& d = document();
    QString why = placeholder();
    if (why.isEmpty() && !d.snapshot()->includes(d.layer(), d.head()))
        why = tr("Computing layer %1, head %2…").arg(d.layer()).arg(d.head());
    if (!why.isEmpty()) return showPlaceholder(why);
    const TraceSnapshot& snapshot = *d.snapshot();
    const QueryKeyPlane plane = queryKeyPlane(*snapshot.trace, d.layer(), d.head());
    const QStringList queries = snapshot.labels(), keys = snapshot.keyLabels();

    m_plot->clearPlottables();
    m_plot->clearItems();
    m_plot->plotLayout()->clear();
    auto* rect = new QCPAxisRect(m_plot);
    m_plot->plotLayout()->addElement(1, 0, rect);
    const QString kind = attentionKindTitle(snapshot.kind);
    m_plot->plotLayout()->addElement(
        0, 0,
        new QCPTextElement(m_plot,
                           (kind.isEmpty() ? QString() : kind + QStringLiteral(" · ")) +
                               tr("Layer %1 · Head %2 · %3 · queries and keys in one plane "
                                  "(%4% of their variance)")
                                   .arg(d.layer())
                                   .arg(d.head())
                                   .arg(configTitle(snapshot.config))
                                   .arg(plane.explained * 100, 0, 'f', 0),
                           QFont(m_plot->font().family(), 12, QFont::Bold)));
    // The plot's default axes went with the cleared layout: the graphs use the new rect's.
    m_plot->xAxis = rect->axis(QCPAxis::atBottom);
    m_plot->yAxis = rect->axis(QCPAxis::atLeft);
    m_plot->xAxis->setLabel(tr("principal axis 1"));
    m_plot->yAxis->setLabel(tr("principal axis 2"));
    auto* legend = new QCPLegend;
    rect->insetLayout()->addElement(legend, Qt::AlignTop | Qt::AlignRight);
    legend->setLayer(QStringLiteral("legend"));
    m_plot->legend = legend;

    // Lines first, under the markers: each query to the key it attends to most.
    const bool labelled = plane.queries.rows() <= kMaxLabelledTokens;
    for (Eigen::Index i = 0; i < plane.queries.rows(); ++i) {
        auto* line = new QCPItemLine(m_plot);
        line->start->setAxes(m_plot->xAxis, m_plot->yAxis);
        line->end->setAxes(m_plot->xAxis, m_plot->yAxis);
        line->start->setCoords(plane.queries(i, 0), plane.queries(i, 1));
        const int j = plane.attended[i];
        line->end->setCoords(plane.keys(j, 0), plane.keys(j, 1));
        line->setPen(QPen(QColor(120, 120, 120, 140), 1));
    }
    QCPCurve* q = scatter(m_plot, tr("queries (W_Q)"),
                          QCPScatterStyle(QCPScatterStyle::ssDisc, kQueryColor, kQueryColor, 8));
    QCPCurve* k =
        scatter(m_plot, tr("keys (W_K)"),
                QCPScatterStyle(QCPScatterStyle::ssSquare, QPen(kKeyColor, 2), Qt::NoBrush, 10));
    for (Eigen::Index i = 0; i < plane.queries.rows(); ++i)
        q->addData(plane.queries(i, 0), plane.queries(i, 1));
    for (Eigen::Index j = 0; j < plane.keys.rows(); ++j)
        k->addData(plane.keys(j, 0), plane.keys(j, 1));
    auto label = [&](double x, double y, const QString& text, const QColor& color) {
        auto* item = new QCPItemText(m_plot);
        item->position->setAxes(m_plot->xAxis, m_plot->yAxis);
        item->position->setCoords(x, y);
        item->setPositionAlignment(Qt::AlignLeft | Qt::AlignBottom);
        item->setText(text);
        item->setColor(color.darker(140));
        item->setClipToAxisRect(true);
    };
    if (labelled) {
        for (Eigen::Index i = 0; i < plane.queries.rows(); ++i)
            label(plane.queries(i, 0), plane.queries(i, 1), queries.value(i), kQueryColor);
        for (Eigen::Index j = 0; j < plane.keys.rows(); ++j)
            label(plane.keys(j, 0), plane.keys(j, 1), keys.value(j), kKeyColor);
    }
    // One scale on both axes: distances in the plane are distances between the vectors.
    m_plot->rescaleAxes();
    const double spanX = m_plot->xAxis->range().size(), spanY = m_plot->yAxis->range().size();
    const double span = std::max({spanX, spanY, 1e-9}) * 1.15;
    m_plot->xAxis->setRange(m_plot->xAxis->range().center(), span, Qt::AlignCenter);
    m_plot->yAxis->setRange(m_plot->yAxis->range().center(), span, Qt::AlignCenter);
    m_plot->yAxis->setScaleRatio(m_plot->xAxis, 1.0);
    static_cast<QStackedLayout*>(layout())->setCurrentWidget(m_plot);
    m_plot->replot();
}

}  // namespace qkv::ui
