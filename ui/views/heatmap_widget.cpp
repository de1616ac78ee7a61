#include "ui/views/heatmap_widget.h"

#include <qcustomplot.h>

#include <QApplication>
#include <QLabel>
#include <QResizeEvent>
#include <QStackedLayout>
#include <QToolTip>
#include <QWheelEvent>
#include <cmath>

namespace qkv::ui {
namespace {

// A plot whose size hints stay put: the figure sizes its panels to the plot (fitCells), and
// hints that followed the panels would have the window's layout resize the plot again, without
// end. The widget's minimum is fixed for the same reason.
class SteadyPlot : public QCustomPlot {
  public:
    using QCustomPlot::QCustomPlot;
    QSize minimumSizeHint() const override { return kMinimumPlotSize; }
    QSize sizeHint() const override { return kMinimumPlotSize; }
};

// One wheel notch (120 eighths of a degree) zooms by this factor; touchpads send fractions.
constexpr double kZoomPerNotch = 0.8;

}  // namespace

HeatmapWidget::HeatmapWidget(QWidget* parent) : QWidget(parent) {
    m_stack = new QStackedLayout(this);
    m_placeholder = new QLabel(this);
    m_placeholder->setAlignment(Qt::AlignCenter);
    m_placeholder->setWordWrap(true);
    m_placeholder->setStyleSheet(QStringLiteral("color: palette(mid); font-size: 15px;"));
    m_plot = new SteadyPlot(this);
    // A fixed minimum: the plot's own hint grows with its tick labels (a long row of tokens or
    // ids), and the window's minimum width with it. A small plot shows fewer labels instead.
    m_plot->setMinimumSize(kMinimumPlotSize);
    m_plot->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Expanding);
    setMinimumSize(kMinimumPlotSize);
    m_plot->setMouseTracking(true);
    m_plot->installEventFilter(this);
    m_figure = std::make_unique<HeatmapFigure>(m_plot);
    m_stack->addWidget(m_placeholder);
    m_stack->addWidget(m_plot);
    connect(m_plot, &QCustomPlot::mouseMove, this, &HeatmapWidget::onMouseMove);
    connect(m_plot, &QCustomPlot::mousePress, this, &HeatmapWidget::onMousePress);
    connect(m_plot, &QCustomPlot::mouseRelease, this, &HeatmapWidget::onMouseRelease);
    connect(m_plot, &QCustomPlot::mouseWheel, this, &HeatmapWidget::onWheel);
}

HeatmapWidget::~HeatmapWidget() = default;

void HeatmapWidget::showFigure(FigureSpec spec, const ColorScheme& colors,
                               std::optional<std::pair<int, int>> highlight,
                               std::optional<int> pinnedRow, std::optional<int> pinnedColumn) {
    m_figure->setColorScheme(colors);
    m_figure->show(std::move(spec));
    m_figure->setPinned(pinnedRow, pinnedColumn);
    m_figure->setHighlight(highlight);
    m_stack->setCurrentWidget(m_plot);
    m_figure->fitCells(m_plot->size());
    m_plot->replot();
    updateCursor();
    emit figureShown();
}

void HeatmapWidget::showMarks(std::optional<std::pair<int, int>> highlight,
                              std::optional<int> pinnedRow, std::optional<int> pinnedColumn) {
    m_figure->setPinned(pinnedRow, pinnedColumn);
    m_figure->setHighlight(highlight);
    m_plot->replot();
}

void HeatmapWidget::showPlaceholder(const QString& text) {
    m_placeholder->setText(text);
    m_stack->setCurrentWidget(m_placeholder);
}

bool HeatmapWidget::isShowingFigure() const { return m_stack->currentWidget() == m_plot; }

QString HeatmapWidget::placeholderText() const {
    return isShowingFigure() ? QString() : m_placeholder->text();
}

bool HeatmapWidget::eventFilter(QObject* watched, QEvent* event) {
    if (watched == m_plot && event->type() == QEvent::Resize) {
        m_figure->fitCells(static_cast<QResizeEvent*>(event)->size());
    } else if (watched == m_plot && event->type() == QEvent::Leave) {
        QToolTip::hideText();
    }
    return QWidget::eventFilter(watched, event);
}

bool HeatmapWidget::canZoom() const {
    return m_zoomable && isShowingFigure() && m_figure->canZoom();
}

void HeatmapWidget::zoomBy(double factor) {
    if (!canZoom()) return;
    m_figure->zoomAt(QPoint(-1, -1), factor);  // outside every panel: about the centre
    m_plot->replot();
    updateCursor();
}

void HeatmapWidget::resetZoom() {
    if (!canZoom()) return;
    m_figure->resetWindow();
    m_plot->replot();
    updateCursor();
}

void HeatmapWidget::updateCursor() {
    if (m_dragging)
        m_plot->setCursor(Qt::ClosedHandCursor);
    else if (canZoom() && m_figure->isZoomed())
        m_plot->setCursor(Qt::OpenHandCursor);
    else
        m_plot->unsetCursor();
}

void HeatmapWidget::onWheel(QWheelEvent* event) {
    if (!canZoom()) return;
    const double notches = event->angleDelta().y() / 120.0;
    if (notches == 0) return;
    m_figure->zoomAt(event->position().toPoint(), std::pow(kZoomPerNotch, notches));
    m_plot->replot(QCustomPlot::rpQueuedReplot);
    updateCursor();
    event->accept();
}

void HeatmapWidget::onMouseMove(QMouseEvent* event) {
    if (m_pressedAt && canZoom() && m_figure->isZoomed()) {
        if (!m_dragging &&
            (event->pos() - *m_pressedAt).manhattanLength() >= QApplication::startDragDistance()) {
            m_dragging = true;
            m_dragFrom = *m_pressedAt;
            QToolTip::hideText();
            updateCursor();
        }
        if (m_dragging) {
            m_figure->panByPixels(event->pos() - m_dragFrom);
            m_dragFrom = event->pos();
            m_plot->replot(QCustomPlot::rpQueuedReplot);
            return;
        }
    }
    const auto cell = m_figure->cellAt(event->pos());
    if (!cell || !m_toolTip) {
        QToolTip::hideText();
        return;
    }
    m_lastToolTip = m_toolTip(*cell);
    QToolTip::showText(m_plot->mapToGlobal(event->pos()), m_lastToolTip, m_plot);
}

void HeatmapWidget::onMousePress(QMouseEvent* event) {
    if (event->button() == Qt::LeftButton) m_pressedAt = event->pos();
}

// A click selects the cell it was pressed on; a drag pans instead.
void HeatmapWidget::onMouseRelease(QMouseEvent* event) {
    if (event->button() != Qt::LeftButton || !m_pressedAt) return;
    const QPoint pressedAt = *m_pressedAt;
    const bool dragged = m_dragging;
    m_pressedAt.reset();
    m_dragging = false;
    updateCursor();
    if (dragged) return;
    if (const auto cell = m_figure->cellAt(pressedAt)) emit cellClicked(*cell);
}

}  // namespace qkv::ui
