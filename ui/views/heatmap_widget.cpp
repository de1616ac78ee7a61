#include "ui/views/heatmap_widget.h"

#include <qcustomplot.h>

#include <QLabel>
#include <QResizeEvent>
#include <QStackedLayout>
#include <QToolTip>

namespace qkv::ui {

HeatmapWidget::HeatmapWidget(QWidget* parent) : QWidget(parent) {
    m_stack = new QStackedLayout(this);
    m_placeholder = new QLabel(this);
    m_placeholder->setAlignment(Qt::AlignCenter);
    m_placeholder->setWordWrap(true);
    m_placeholder->setStyleSheet(QStringLiteral("color: palette(mid); font-size: 15px;"));
    m_plot = new QCustomPlot(this);
    m_plot->setMouseTracking(true);
    m_plot->installEventFilter(this);
    m_figure = std::make_unique<HeatmapFigure>(m_plot);
    m_stack->addWidget(m_placeholder);
    m_stack->addWidget(m_plot);
    connect(m_plot, &QCustomPlot::mouseMove, this, &HeatmapWidget::onMouseMove);
    connect(m_plot, &QCustomPlot::mousePress, this, &HeatmapWidget::onMousePress);
}

HeatmapWidget::~HeatmapWidget() = default;

void HeatmapWidget::showFigure(const FigureSpec& spec, const ColorScheme& colors,
                               std::optional<std::pair<int, int>> highlight,
                               std::optional<int> pinnedRow, std::optional<int> pinnedColumn) {
    m_figure->setColorScheme(colors);
    m_figure->show(spec);
    m_figure->setPinned(pinnedRow, pinnedColumn);
    m_figure->setHighlight(highlight);
    m_stack->setCurrentWidget(m_plot);
    m_figure->fitCells(m_plot->size());
    m_plot->replot();
    emit figureShown();
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

void HeatmapWidget::onMouseMove(QMouseEvent* event) {
    const auto cell = m_figure->cellAt(event->pos());
    if (!cell || !m_toolTip) {
        QToolTip::hideText();
        return;
    }
    m_lastToolTip = m_toolTip(*cell);
    QToolTip::showText(m_plot->mapToGlobal(event->pos()), m_lastToolTip, m_plot);
}

void HeatmapWidget::onMousePress(QMouseEvent* event) {
    if (event->button() != Qt::LeftButton) return;
    if (const auto cell = m_figure->cellAt(event->pos())) emit cellClicked(*cell);
}

}  // namespace qkv::ui
