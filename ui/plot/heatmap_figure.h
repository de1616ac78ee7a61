#pragma once
// Draws heatmap panels into a QCustomPlot the same way on screen, in exported files and in
// headless rendering (qkvlab-cli render): a title, discrete cells (QCPColorMap's interpolation
// off), tokens as tick labels, one colour scale per scale group, masked cells in grey, and cells
// kept square (at the data's aspect) whatever the plot's size.
//
// Only the visible window of each panel is handed to QCustomPlot, at most one sample per pixel
// (cell_sampling.h), resampled after every layout (resize, zoom, pan, export): a 4096-token head
// costs what its pixels cost. Figures whose panels share one shape can be zoomed and panned.
#include <QBrush>
#include <QMetaObject>
#include <QPen>
#include <QPoint>
#include <QRectF>
#include <QSize>
#include <QString>
#include <optional>
#include <vector>

#include "ui/plot/cell_sampling.h"
#include "ui/plot/color_maps.h"
#include "ui/plot/heatmap_data.h"

class QCustomPlot;
class QCPAbstractItem;
class QCPAxisRect;
class QCPColorMap;
class QCPColorScale;
class QCPLayoutGrid;
class QCPMarginGroup;
class QCPTextElement;
class QFont;

namespace qkv::ui {

// A number as the figures and tooltips print it: `decimals` places, a negative one with a true
// minus sign (−), not a hyphen.
QString signedNumber(double value, int decimals);

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
    // Lays out and draws; call fitCells, then replot. A zoomed window is kept when the new
    // panels have the shapes of the old ones (another head, mode or selection).
    void show(FigureSpec spec);
    void clear();

    // Pads the figure so that cells keep the data's aspect in a plot of this size. Called on
    // every resize and before each export at the export's size.
    void fitCells(const QSize& size);

    // Outlines one cell (row, col) in every panel, e.g. the selected token pair; nullopt clears.
    void setHighlight(std::optional<std::pair<int, int>> rowCol);
    // Marks a whole row and/or column in every panel (a pinned token) with a translucent band.
    void setPinned(std::optional<int> row, std::optional<int> column);

    // Zoom and pan, in cell coordinates (cell_window.h); one window for every panel. Only for
    // figures whose panels all have one shape (canZoom); a full window means not zoomed.
    bool canZoom() const;
    bool isZoomed() const { return m_window.has_value(); }
    QRectF window() const;
    void setWindow(const QRectF& window);  // then replot
    void resetWindow();
    // `factor` < 1 zooms in, about the point under `pixel` (the window's centre when that is
    // outside every panel).
    void zoomAt(const QPoint& pixel, double factor);
    void panByPixels(const QPoint& delta);  // the cells follow the mouse

    std::optional<HeatmapCell> cellAt(const QPoint& pixel) const;
    QPoint cellCenter(const HeatmapCell& cell) const;  // in plot pixels
    // What the colour map holds for the cell: its value when cells are a pixel or larger, else
    // the sample covering it; NaN for a masked cell or one outside the window.
    double shownValue(const HeatmapCell& cell) const;
    // Each axis's samples for a panel (one per visible cell once cells are a pixel or larger).
    const AxisSampling& rowSamples(int panel) const { return m_drawn.at(panel).rowSamples; }
    const AxisSampling& columnSamples(int panel) const { return m_drawn.at(panel).colSamples; }
    // The labels each axis shows: every k-th token, k chosen so that they do not overlap.
    int rowLabelStride(int panel) const { return m_drawn.at(panel).rowStride; }
    int columnLabelStride(int panel) const { return m_drawn.at(panel).colStride; }

    const FigureSpec& spec() const { return m_spec; }
    bool isEmpty() const { return m_drawn.empty(); }
    QCustomPlot* plot() const { return m_plot; }
    QCPColorMap* colorMap(int panel) const { return m_drawn.at(panel).map; }
    QCPColorScale* colorScale(int group) const;

    // Axes of up to this many cells are handed to QCustomPlot whole, as they were before
    // sampling: cheap, and drawn the same even where a panel is squeezed below a pixel per cell.
    static constexpr int kWholeAxisCells = 512;

  private:
    static QString wrappedTitle(const QString& title, const QFont& font, int width);
    struct Drawn {
        QCPAxisRect* rect = nullptr;
        QCPColorMap* map = nullptr;
        int row = 0;
        int column = 0;
        int rowStride = 1;  // every k-th token labelled, so labels never overlap
        int colStride = 1;
        // What the colour map holds: the samples of `sampledWindow` over `sampledPixels`.
        AxisSampling rowSamples{};
        AxisSampling colSamples{};
        QRectF sampledWindow{};
        QSize sampledPixels{};
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
    // The window of panel `panel` (its whole matrix unless zoomed; `full` ignores the zoom).
    QRectF panelWindow(size_t panel, bool full = false) const;
    void applyWindow(size_t panel);
    // Resamples every panel whose window or pixel size changed since it was last sampled.
    void updateSamples();
    void sample(size_t panel, const QRectF& window, const QSize& pixels);

    QCustomPlot* m_plot;
    ColorScheme m_colors;
    FigureSpec m_spec;
    QCPLayoutGrid* m_grid = nullptr;
    QCPTextElement* m_title = nullptr;
    QCPMarginGroup* m_marginGroup = nullptr;  // top and bottom of panels and colour scales
    std::vector<Drawn> m_drawn;
    std::vector<Scale> m_scales;
    std::vector<QCPAbstractItem*> m_highlight;
    std::vector<QCPAbstractItem*> m_pinned;
    std::optional<QRectF> m_window;  // zoomed; nullopt shows every panel whole
    QMetaObject::Connection m_afterLayout;
    // A rectangle in panel coordinates (cells are 1 wide, centred on their index).
    QCPAbstractItem* addBand(size_t panel, double left, double top, double right, double bottom,
                             const QPen& pen, const QBrush& brush);
};

}  // namespace qkv::ui
