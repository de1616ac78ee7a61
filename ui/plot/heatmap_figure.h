#pragma once
// Draws heatmap panels into a QCustomPlot the same way on screen, in exported files and in
// headless rendering (qkvlab-cli render): a title, discrete cells (QCPColorMap's interpolation
// off), tokens as tick labels, one colour scale per scale group, masked cells in grey, and cells
// kept square (at the data's aspect) whatever the plot's size.
#include <QBrush>
#include <QPen>
#include <QPoint>
#include <QSize>
#include <QString>
#include <optional>
#include <vector>

#include "ui/plot/color_maps.h"
#include "ui/plot/heatmap_data.h"

class QCustomPlot;
class QCPAbstractItem;
class QCPAxisRect;
class QCPColorMap;
class QCPColorScale;
class QCPLayoutGrid;
class QCPMarginGroup;

namespace qkv::ui {

// A short label drawn inside one cell, on a light tag (the user's name of a head).
struct CellNote {
    int row = 0;
    int col = 0;
    QString text;
};

struct HeatmapPanel {
    HeatmapData data;
    QString title;
    int scaleGroup = 0;  // consecutive panels of one group share a colour scale after the last
    int annotationDecimals = -1;  // >= 0: print each cell's value inside it (small grids)
    std::vector<CellNote> notes{};
};

struct FigureSpec {
    QString title;
    std::vector<HeatmapPanel> panels;
    // Panels per row; 0 puts all in one row. Wrapped panels share one colour scale (the first
    // panel's), drawn right of the first row.
    int columns = 0;
    // Cells square (at the data's aspect). Off, panels fill the figure, each as wide as its
    // columns ask (a quarter to 6 times its height): panels of very different shapes side by side.
    bool squareCells = true;
};

struct HeatmapCell {
    int panel = 0;
    int row = 0;
    int col = 0;
    bool operator==(const HeatmapCell&) const = default;
};

class HeatmapFigure {
  public:
    explicit HeatmapFigure(QCustomPlot* plot);
    HeatmapFigure(const HeatmapFigure&) = delete;
    HeatmapFigure& operator=(const HeatmapFigure&) = delete;
    ~HeatmapFigure();

    void setColorScheme(const ColorScheme& scheme);
    void show(const FigureSpec& spec);  // lays out and draws; call fitCells, then replot
    void clear();

    // Pads the figure so that cells keep the data's aspect in a plot of this size. Called on
    // every resize and before each export at the export's size.
    void fitCells(const QSize& size);

    // Outlines one cell (row, col) in every panel, e.g. the selected token pair; nullopt clears.
    void setHighlight(std::optional<std::pair<int, int>> rowCol);
    // Marks a whole row and/or column in every panel (a pinned token) with a translucent band.
    void setPinned(std::optional<int> row, std::optional<int> column);

    std::optional<HeatmapCell> cellAt(const QPoint& pixel) const;
    QPoint cellCenter(const HeatmapCell& cell) const;  // in plot pixels
    double shownValue(const HeatmapCell& cell) const;  // what the colour map holds for the cell

    const FigureSpec& spec() const { return m_spec; }
    bool isEmpty() const { return m_drawn.empty(); }
    QCustomPlot* plot() const { return m_plot; }
    QCPColorMap* colorMap(int panel) const { return m_drawn.at(panel).map; }
    QCPColorScale* colorScale(int group) const;

  private:
    struct Drawn {
        QCPAxisRect* rect = nullptr;
        QCPColorMap* map = nullptr;
        int row = 0;
        int column = 0;
        int rowStride = 1;  // every k-th token labelled, so labels never overlap
        int colStride = 1;
    };
    struct Scale {
        QCPColorScale* scale = nullptr;
        bool diverging = false;
    };
    void drawPanel(const HeatmapPanel& panel, int row, int column);
    void addScale(const HeatmapData& data, int column);
    void drawRow(const FigureSpec& spec);
    void drawWrapped(const FigureSpec& spec);
    void annotate(int panel);
    void drawNotes(int panel);
    void layoutNow();
    void padToAspect();
    bool updateTickStrides();

    QCustomPlot* m_plot;
    ColorScheme m_colors;
    FigureSpec m_spec;
    QCPLayoutGrid* m_grid = nullptr;
    QCPMarginGroup* m_marginGroup = nullptr;  // top and bottom of panels and colour scales
    QCPMarginGroup* m_sideGroup = nullptr;    // left and right of the panels
    std::vector<Drawn> m_drawn;
    std::vector<Scale> m_scales;
    std::vector<QCPAbstractItem*> m_highlight;
    std::vector<QCPAbstractItem*> m_pinned;
    // A rectangle in panel coordinates (cells are 1 wide, centred on their index).
    QCPAbstractItem* addBand(size_t panel, double left, double top, double right, double bottom,
                             const QPen& pen, const QBrush& brush);
};

}  // namespace qkv::ui
