#include "ui/views/space_view.h"

#include <qcustomplot.h>

#include <QCheckBox>
#include <QLabel>
#include <QStackedWidget>
#include <QVBoxLayout>

#include "core/analysis/head_vectors.h"
#include "ui/document/lab_document.h"
#include "ui/plot/head_figures.h"
#include "ui/plot/tying_colors.h"
#include "ui/views/sentence_bar.h"

namespace qkv::ui {
namespace {

// Token names beside the markers up to this many tokens; beyond, the tooltip-free cloud alone.
constexpr int kMaxLabelledTokens = 80;
// matplotlib's tab10 blue (queries) and orange (keys), apart for most colour-blind readers.
const QColor kQueryColor = tab10Color(0);
const QColor kKeyColor = tab10Color(1);

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
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 4, 0, 0);
    m_pool = new QCheckBox(tr("pool the example sentences"), this);
    addControlRow(layout, tr("Vectors of this sentence"), m_pool)
        .hint->setText(tr("Under shared-qk the two clouds are one; under the learned weights "
                          "they stand apart."));
    connect(m_pool, &QCheckBox::toggled, this, [this](bool pooled) {
        this->document().setPooledSentences(pooled ? exampleSentences() : QStringList{});
    });
    m_pages = new QStackedWidget(this);
    layout->addWidget(m_pages, 1);
    m_placeholder = new QLabel(this);
    m_placeholder->setAlignment(Qt::AlignCenter);
    m_placeholder->setWordWrap(true);
    m_placeholder->setStyleSheet(QStringLiteral("color: palette(mid);"));
    m_plot = new QCustomPlot(this);
    m_plot->setObjectName(QStringLiteral("spacePlot"));
    m_pages->addWidget(m_placeholder);
    m_pages->addWidget(m_plot);
    connectRefresh();
    connect(&document, &LabDocument::headChanged, this, &SpaceView::scheduleRefresh);
    connect(&document, &LabDocument::modelChanged, this, &SpaceView::updatePoolOption);
}

// Pooling tokenizes the example sentences: without a tokenizer the option is off, and says why.
void SpaceView::updatePoolOption() {
    const bool can = canPool();
    if (!can) m_pool->setChecked(false);
    m_pool->setEnabled(can);
    m_pool->setToolTip(
        can ? tr("The head's queries and keys over every example sentence as well "
                 "(lighter), as AttentionViz shows a head across a corpus")
            : tr("This model has no tokenizer, so the example sentences cannot be read: "
                 "only the typed token ids are shown"));
}

QCPCurve* SpaceView::cloud(int which) const {
    // The pooled clouds, when drawn, come first (under the sentence's own).
    const int pooledClouds = m_plot->plottableCount() > 2 ? 2 : 0;
    return qobject_cast<QCPCurve*>(m_plot->plottable(pooledClouds + which));
}

bool SpaceView::isShowingFigure() const { return m_pages->currentWidget() == m_plot; }
bool SpaceView::pooled() const { return m_pool->isChecked(); }
void SpaceView::setPooled(bool pooled) { m_pool->setChecked(pooled && canPool()); }
bool SpaceView::canPool() const {
    const Model* model = document().model();
    return model && model->tokenizer();
}
QString SpaceView::placeholderText() const {
    return isShowingFigure() ? QString() : m_placeholder->text();
}

void SpaceView::showPlaceholder(const QString& text) {
    m_placeholder->setText(text);
    m_pages->setCurrentWidget(m_placeholder);
}

void SpaceView::refresh() {
    const LabDocument& d = document();
    QString why = headPlaceholder();
    if (why.isEmpty() && !d.snapshot()->includes(d.layer(), d.head()))
        why = tr("Computing layer %1, head %2…").arg(d.layer()).arg(d.head());
    if (!why.isEmpty()) return showPlaceholder(why);
    const TraceSnapshot& snapshot = *d.snapshot();
    std::vector<HeadSample> samples{headSample(*snapshot.trace, d.layer(), d.head())};
    const bool pooledHere = snapshot.pooledLayer == d.layer() && snapshot.pooledHead == d.head();
    if (pooled() && pooledHere)
        samples.insert(samples.end(), snapshot.pooled.begin(), snapshot.pooled.end());
    const QueryKeyPlane plane = queryKeyPlane(samples);
    // The sentence's own points come first; the pooled ones follow.
    const int ownQueries = plane.queryCounts.front(), ownKeys = plane.keyCounts.front();
    const QStringList queries = snapshot.labels(), keys = snapshot.keyLabels();

    m_plot->clearPlottables();
    m_plot->clearItems();
    m_plot->plotLayout()->clear();
    auto* rect = new QCPAxisRect(m_plot);
    m_plot->plotLayout()->addElement(1, 0, rect);
    const QString kind = attentionKindTitle(snapshot.kind);
    auto* title = new QCPTextElement(
        m_plot,
        (kind.isEmpty() ? QString() : kind + QStringLiteral(" · ")) +
            tr("Layer %1 · Head %2 · %3 · queries and keys in one plane "
               "(%4% of their variance)")
                .arg(d.layer())
                .arg(d.head())
                .arg(configTitle(snapshot.config))
                .arg(plane.explained * 100, 0, 'f', 0) +
            (samples.size() > 1 ? tr(" · with %1 example sentences").arg(samples.size() - 1)
                                : QString()),
        QFont(m_plot->font().family(), 12, QFont::Bold));
    m_plot->plotLayout()->addElement(0, 0, title);
    // The plot's default axes went with the cleared layout: the graphs use the new rect's.
    m_plot->xAxis = rect->axis(QCPAxis::atBottom);
    m_plot->yAxis = rect->axis(QCPAxis::atLeft);
    m_plot->xAxis->setLabel(tr("principal axis 1"));
    m_plot->yAxis->setLabel(tr("principal axis 2"));
    auto* legend = new QCPLegend;
    rect->insetLayout()->addElement(legend, Qt::AlignTop | Qt::AlignRight);
    legend->setLayer(QStringLiteral("legend"));
    m_plot->legend = legend;

    // The pooled sentences' points, lighter and first, under the sentence's own.
    if (samples.size() > 1) {
        const QColor query(kQueryColor.red(), kQueryColor.green(), kQueryColor.blue(), 70);
        const QColor key(kKeyColor.red(), kKeyColor.green(), kKeyColor.blue(), 90);
        QCPCurve* pq = scatter(m_plot, tr("queries, example sentences"),
                               QCPScatterStyle(QCPScatterStyle::ssDisc, query, query, 5));
        QCPCurve* pk =
            scatter(m_plot, tr("keys, example sentences"),
                    QCPScatterStyle(QCPScatterStyle::ssSquare, QPen(key, 1), Qt::NoBrush, 6));
        for (Eigen::Index i = ownQueries; i < plane.queries.rows(); ++i)
            pq->addData(plane.queries(i, 0), plane.queries(i, 1));
        for (Eigen::Index j = ownKeys; j < plane.keys.rows(); ++j)
            pk->addData(plane.keys(j, 0), plane.keys(j, 1));
    }
    // Lines under the sentence's markers: each of its queries to the key it attends to most.
    const bool labelled = ownQueries <= kMaxLabelledTokens;
    for (Eigen::Index i = 0; i < ownQueries; ++i) {
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
    for (Eigen::Index i = 0; i < ownQueries; ++i)
        q->addData(plane.queries(i, 0), plane.queries(i, 1));
    for (Eigen::Index j = 0; j < ownKeys; ++j) k->addData(plane.keys(j, 0), plane.keys(j, 1));
    // One scale on both axes: distances in the plane are distances between the vectors.
    m_plot->rescaleAxes();
    const double spanX = m_plot->xAxis->range().size(), spanY = m_plot->yAxis->range().size();
    const double span = std::max({spanX, spanY, 1e-9}) * 1.15;
    m_plot->xAxis->setRange(m_plot->xAxis->range().center(), span, Qt::AlignCenter);
    m_plot->yAxis->setRange(m_plot->yAxis->range().center(), span, Qt::AlignCenter);
    m_plot->yAxis->setScaleRatio(m_plot->xAxis, 1.0);
    m_pages->setCurrentWidget(m_plot);
    m_plot->replot();  // lays the plot out: the labels are placed in its pixels
    if (labelled) {
        std::vector<PlaneLabel> labels;
        for (Eigen::Index i = 0; i < ownQueries; ++i)
            labels.push_back(
                {plane.queries(i, 0), plane.queries(i, 1), queries.value(i), kQueryColor});
        for (Eigen::Index j = 0; j < ownKeys; ++j)
            labels.push_back({plane.keys(j, 0), plane.keys(j, 1), keys.value(j), kKeyColor});
        const int placed = placeLabels(labels);
        m_labelCount = {placed, static_cast<int>(labels.size())};
        if (placed < static_cast<int>(labels.size())) {  // the rule, where it left labels out
            const QString heading = title->text();
            auto note = [&](int shown) {
                return heading + tr("\n%1 of %2 points labelled: a label that would cover "
                                    "another is left out")
                                     .arg(shown)
                                     .arg(labels.size());
            };
            title->setText(note(placed));
            m_plot->replot();  // the title's second line moves the axes: place them again
            for (int i = m_plot->itemCount() - 1; i >= 0; --i)
                if (qobject_cast<QCPItemText*>(m_plot->item(i))) m_plot->removeItem(i);
            m_labelCount.first = placeLabels(labels);
            title->setText(note(m_labelCount.first));
        }
        m_plot->replot();
    } else {
        m_labelCount = {0, 0};
    }
}

// Each label beside its point, at the first of four corners where it covers no label already
// placed (queries first, in token order); a label with no free corner is left out.
int SpaceView::placeLabels(const std::vector<PlaneLabel>& labels) {
    const QFontMetrics metrics(m_plot->font());
    std::vector<QRectF> taken;
    int placed = 0;
    for (const PlaneLabel& l : labels) {
        const QPointF at(m_plot->xAxis->coordToPixel(l.x), m_plot->yAxis->coordToPixel(l.y));
        const QSizeF size = metrics.boundingRect(l.text).size() + QSizeF(4, 2);
        const QPointF offsets[] = {{4, -size.height() - 2},
                                   {-size.width() - 4, -size.height() - 2},
                                   {4, 2},
                                   {-size.width() - 4, 2}};
        for (const QPointF& offset : offsets) {
            const QRectF box(at + offset, size);
            if (std::any_of(taken.begin(), taken.end(),
                            [&](const QRectF& other) { return other.intersects(box); }))
                continue;
            taken.push_back(box);
            auto* item = new QCPItemText(m_plot);
            item->position->setType(QCPItemPosition::ptAbsolute);
            item->position->setCoords(box.topLeft());
            item->setPositionAlignment(Qt::AlignLeft | Qt::AlignTop);
            item->setText(l.text);
            item->setColor(l.color.darker(140));
            item->setClipToAxisRect(true);
            ++placed;
            break;
        }
    }
    return placed;
}

void SpaceView::resizeEvent(QResizeEvent* event) {
    DocumentView::resizeEvent(event);
    scheduleRefresh();  // the labels are placed in pixels
}

}  // namespace qkv::ui
