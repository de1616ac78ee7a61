#pragma once
// A QCustomPlot showing a HeatmapFigure, or a placeholder sentence when there is nothing to show
// (no model, empty sentence, an error). Keeps cells square on resize, shows a tooltip for the cell
// under the mouse and reports clicks. Zoomable ones zoom with the wheel about the cursor and pan
// by dragging (a press that does not drag is a click).
#include <QPoint>
#include <QSize>
#include <QString>
#include <QWidget>
#include <functional>
#include <memory>
#include <optional>
#include <utility>

#include "ui/plot/heatmap_figure.h"

class QCustomPlot;
class QLabel;
class QStackedLayout;

namespace qkv::ui {

// The smallest a heatmap gets in a layout, whatever it shows.
inline constexpr QSize kMinimumPlotSize{160, 120};

class HeatmapWidget : public QWidget {
    Q_OBJECT
  public:
    using ToolTipProvider = std::function<QString(const HeatmapCell&)>;

    explicit HeatmapWidget(QWidget* parent = nullptr);
    ~HeatmapWidget() override;

    HeatmapFigure& figure() { return *m_figure; }
    QCustomPlot* plot() const { return m_plot; }

    // `highlight` outlines one (row, col) cell in every panel; `pinned` marks a row and/or a
    // column (a pinned token).
    void showFigure(FigureSpec spec, const ColorScheme& colors,
                    std::optional<std::pair<int, int>> highlight = std::nullopt,
                    std::optional<int> pinnedRow = std::nullopt,
                    std::optional<int> pinnedColumn = std::nullopt);
    // Moves the outlined cell and the pinned row and column of the figure shown.
    void showMarks(std::optional<std::pair<int, int>> highlight, std::optional<int> pinnedRow,
                   std::optional<int> pinnedColumn);
    void showPlaceholder(const QString& text);
    bool isShowingFigure() const;
    QString placeholderText() const;

    void setToolTipProvider(ToolTipProvider provider) { m_toolTip = std::move(provider); }
    QString lastToolTip() const { return m_lastToolTip; }

    // Whether the wheel, drags and zoomBy/resetZoom move the figure (single-head views).
    void setZoomable(bool zoomable) { m_zoomable = zoomable; }
    bool canZoom() const;
    void zoomBy(double factor);  // about the window's centre; < 1 zooms in
    void resetZoom();

  signals:
    void cellClicked(qkv::ui::HeatmapCell cell);
    void figureShown();  // after the new figure was painted into the plot's buffer

  protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

  private:
    void onMouseMove(QMouseEvent* event);
    void onMousePress(QMouseEvent* event);
    void onMouseRelease(QMouseEvent* event);
    void onWheel(QWheelEvent* event);
    void updateCursor();

    QStackedLayout* m_stack;
    QLabel* m_placeholder;
    QCustomPlot* m_plot;
    std::unique_ptr<HeatmapFigure> m_figure;
    ToolTipProvider m_toolTip;
    QString m_lastToolTip;
    bool m_zoomable = false;
    std::optional<QPoint> m_pressedAt;  // the left button is down (a click or a drag)
    QPoint m_dragFrom;                  // where the last pan step ended
    bool m_dragging = false;
};

}  // namespace qkv::ui
