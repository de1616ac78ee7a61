#include "ui/plot/heatmap_figure.h"

#include <qcustomplot.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <map>

namespace qkv::ui {
namespace {

constexpr int kMaxLabelChars = 14;

QString elided(const QString& label) {
    return label.size() <= kMaxLabelChars ? label : label.left(kMaxLabelChars - 1) + u'…';
}

int tickFontSize(int count) { return count <= 24 ? 9 : count <= 48 ? 8 : 7; }

void setLabelTicks(QCPAxis* axis, const QStringList& labels, int stride) {
    auto ticker = QSharedPointer<QCPAxisTickerText>::create();
    for (int i = 0; i < labels.size(); i += stride) ticker->addTick(i, elided(labels[i]));
    axis->setTicker(ticker);
}

void styleLabelAxis(QCPAxis* axis, int count) {
    axis->setSubTicks(false);
    axis->setTickLength(0, 3);
    axis->grid()->setVisible(false);
    QFont font = axis->tickLabelFont();
    font.setPointSize(tickFontSize(count));
    axis->setTickLabelFont(font);
}

// The smallest k of 1, 2, 5, 10, 20, 50, ... such that every k-th label fits in `cellPixels` per
// cell. Round steps keep most labels in place while zooming: those at multiples of 100 stay when
// the step falls to 50.
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

bool sameShapes(const FigureSpec& a, const FigureSpec& b) {
    return a.panels.size() == b.panels.size() &&
           std::equal(a.panels.begin(), a.panels.end(), b.panels.begin(),
                      [](const HeatmapPanel& p, const HeatmapPanel& q) {
                          return p.data.rows == q.data.rows && p.data.cols == q.data.cols;
                      });
}

void frameAxis(QCPAxis* axis) {
    axis->setVisible(true);
    axis->setTicks(false);
    axis->setTickLabels(false);
    axis->grid()->setVisible(false);
}

}  // namespace

HeatmapFigure::HeatmapFigure(QCustomPlot* plot) : m_plot(plot) {
    m_plot->setBackground(Qt::white);
    m_plot->setNoAntialiasingOnDrag(true);
    // Every replot (and every export) lays out first: then the panels' pixel sizes are known.
    m_afterLayout =
        QObject::connect(m_plot, &QCustomPlot::afterLayout, m_plot, [this] { updateSamples(); });
}

HeatmapFigure::~HeatmapFigure() { QObject::disconnect(m_afterLayout); }

QString signedNumber(double value, int decimals) {
    QString text = QString::number(value, 'f', decimals);
    if (text.startsWith(u'-')) text.replace(0, 1, u'−');
    return text;
}

void HeatmapFigure::setColorScheme(const ColorScheme& scheme) {
    m_colors = scheme;
    for (const Scale& s : m_scales)
        s.scale->setGradient(s.diverging ? divergingGradient(m_colors.diverging)
                                         : sequentialGradient(m_colors.sequential));
}

void HeatmapFigure::clear() {
    m_plot->clearItems();
    m_highlight.clear();
    m_pinned.clear();
    m_plot->clearPlottables();
    m_plot->plotLayout()->clear();
    delete m_marginGroup;
    delete m_sideGroup;
    m_marginGroup = m_sideGroup = nullptr;
    m_grid = nullptr;
    m_title = nullptr;
    m_drawn.clear();
    m_scales.clear();
    m_spec = {};
    m_window.reset();
}

// The title on as many lines as `width` needs, broken between its " · " parts: a narrow plot
// shows all of it rather than cutting its ends.
QString HeatmapFigure::wrappedTitle(const QString& title, const QFont& font, int width) {
    const QFontMetrics metrics(font);
    const int room = width - 16;
    if (width <= 0 || metrics.horizontalAdvance(title) <= room) return title;
    const QString separator = QStringLiteral(" · ");
    QStringList lines{QString()};
    for (const QString& part : title.split(separator)) {
        QString& line = lines.back();
        const QString longer = line.isEmpty() ? part : line + separator + part;
        if (line.isEmpty() || metrics.horizontalAdvance(longer) <= room)
            line = longer;
        else
            lines.append(part);
    }
    return lines.join(u'\n');
}

void HeatmapFigure::show(FigureSpec specToShow) {
    const std::optional<QRectF> window =
        sameShapes(m_spec, specToShow) ? m_window : std::optional<QRectF>();
    clear();
    m_spec = std::move(specToShow);
    m_window = window;
    const FigureSpec& spec = m_spec;
    QCPLayoutGrid* outer = m_plot->plotLayout();
    QFont titleFont = m_plot->font();
    titleFont.setPointSize(12);
    titleFont.setBold(true);
    m_title =
        new QCPTextElement(m_plot, wrappedTitle(spec.title, titleFont, m_plot->width()), titleFont);
    outer->addElement(0, 0, m_title);
    m_grid = new QCPLayoutGrid;
    m_grid->setAutoMargins(QCP::msNone);
    m_grid->setColumnSpacing(12);
    outer->addElement(1, 0, m_grid);
    m_marginGroup = new QCPMarginGroup(m_plot);
    m_sideGroup = new QCPMarginGroup(m_plot);

    if (spec.columns > 0)
        drawWrapped(spec);
    else
        drawRow(spec);
    for (size_t i = 0; i < spec.panels.size(); ++i) {
        if (spec.panels[i].annotationDecimals >= 0) annotate(static_cast<int>(i));
        if (!spec.panels[i].notes.empty()) drawNotes(static_cast<int>(i));
    }
}

// One row of panels; consecutive panels of a scale group share the scale after the last of them.
void HeatmapFigure::drawRow(const FigureSpec& spec) {
    int column = 0;
    for (size_t i = 0; i < spec.panels.size(); ++i) {
        // Wide panels beside narrow ones (the Neurons tab's d_k columns beside single columns)
        // get more of the row, so their cells are not squeezed to the narrow ones' width.
        const HeatmapData& d = spec.panels[i].data;
        drawPanel(spec.panels[i], 0, column);
        m_grid->setColumnStretchFactor(column++, std::clamp(double(d.cols) / d.rows, 0.25, 6.0));
        const bool lastOfGroup = i + 1 == spec.panels.size() ||
                                 spec.panels[i + 1].scaleGroup != spec.panels[i].scaleGroup;
        if (lastOfGroup) {
            addScale(spec.panels[i].data, column);
            m_grid->setColumnStretchFactor(column++, 0.01);
            for (size_t k = 0; k <= i; ++k)
                if (spec.panels[k].scaleGroup == spec.panels[i].scaleGroup)
                    m_drawn[k].map->setColorScale(m_scales.back().scale);
        }
    }
}

// Panels wrapped into rows of spec.columns, all on one colour scale.
void HeatmapFigure::drawWrapped(const FigureSpec& spec) {
    for (size_t i = 0; i < spec.panels.size(); ++i)
        drawPanel(spec.panels[i], static_cast<int>(i) / spec.columns,
                  static_cast<int>(i) % spec.columns);
    if (spec.panels.empty()) return;
    addScale(spec.panels.front().data, spec.columns);
    m_grid->setColumnStretchFactor(spec.columns, 0.01);
    for (Drawn& drawn : m_drawn) drawn.map->setColorScale(m_scales.back().scale);
}

void HeatmapFigure::drawPanel(const HeatmapPanel& panel, int row, int column) {
    const HeatmapData& d = panel.data;
    auto* rect = new QCPAxisRect(m_plot, true);
    m_grid->addElement(row, column, rect);
    rect->setMarginGroup(QCP::msTop | QCP::msBottom, m_marginGroup);
    // Equal side margins give side-by-side panels equal inner widths, so all can be square.
    // Without square cells the panels of a row share their rows: the first one names them, and
    // the others keep that room for their cells.
    const bool rowLabels = m_spec.squareCells || column == 0;
    if (m_spec.squareCells) rect->setMarginGroup(QCP::msLeft | QCP::msRight, m_sideGroup);

    QCPAxis* x = rect->axis(QCPAxis::atBottom);
    QCPAxis* y = rect->axis(QCPAxis::atLeft);
    styleLabelAxis(x, d.cols);
    styleLabelAxis(y, d.rows);
    setLabelTicks(x, d.colLabels, 1);
    setLabelTicks(y, d.rowLabels, 1);
    y->setTickLabels(rowLabels);
    if (needsRotation(d.colLabels)) x->setTickLabelRotation(60);
    x->setLabel(d.colTitle);
    // Side by side panels share their rows: one axis title is enough.
    if (column == 0) y->setLabel(d.rowTitle);
    y->setRangeReversed(true);  // row 0 at the top, as in a matrix

    QCPAxis* top = rect->axis(QCPAxis::atTop);
    frameAxis(top);
    frameAxis(rect->axis(QCPAxis::atRight));
    top->setLabel(panel.title);
    QFont titleFont = top->labelFont();
    titleFont.setBold(true);
    top->setLabelFont(titleFont);

    auto* map = new QCPColorMap(x, y);
    map->setInterpolate(false);  // discrete cells: one token pair, one colour
    map->setTightBoundary(false);
    map->setDataRange(QCPRange(d.low, d.high));
    m_drawn.push_back({rect, map, row, column});
    applyWindow(m_drawn.size() - 1);
    // Small panels need no pixel size: they are drawable before their first layout.
    if (d.rows <= kWholeAxisCells && d.cols <= kWholeAxisCells)
        sample(m_drawn.size() - 1, panelWindow(m_drawn.size() - 1), QSize(d.cols, d.rows));
}

void HeatmapFigure::annotate(int panel) {
    const HeatmapData& d = m_spec.panels[panel].data;
    const Drawn& drawn = m_drawn[panel];
    QCPColorGradient gradient = drawn.map->gradient();  // color() is not const in 2.1
    QFont font = m_plot->font();
    font.setPointSize(d.rows * d.cols <= 64 ? 10 : 8);
    for (int r = 0; r < d.rows; ++r)
        for (int c = 0; c < d.cols; ++c) {
            const double v = d.at(r, c);
            if (!std::isfinite(v)) continue;
            auto* text = new QCPItemText(m_plot);
            text->setClipAxisRect(drawn.rect);
            text->position->setAxes(drawn.rect->axis(QCPAxis::atBottom),
                                    drawn.rect->axis(QCPAxis::atLeft));
            text->position->setCoords(c, r);
            text->setText(signedNumber(v, m_spec.panels[panel].annotationDecimals));
            text->setFont(font);
            // Dark text on light cells, light text on dark ones.
            const QColor cell = QColor::fromRgb(gradient.color(v, QCPRange(d.low, d.high)));
            text->setColor(cell.lightnessF() > 0.55 ? Qt::black : Qt::white);
        }
}

void HeatmapFigure::drawNotes(int panel) {
    constexpr int kMaxNoteCharacters = 14;  // longer names are cut; the cell's tooltip has all
    const Drawn& drawn = m_drawn[panel];
    QCPAxis* rows = drawn.rect->axis(QCPAxis::atLeft);
    QFont font = m_plot->font();
    font.setPointSize(7);
    font.setBold(true);
    // Below the cell's centre (where a value may be printed), whichever way the rows run.
    const double below = rows->rangeReversed() ? 0.3 : -0.3;
    for (const CellNote& note : m_spec.panels[panel].notes) {
        auto* text = new QCPItemText(m_plot);
        text->setClipAxisRect(drawn.rect);
        text->position->setAxes(drawn.rect->axis(QCPAxis::atBottom), rows);
        text->position->setCoords(note.col, note.row + below);
        text->setText(note.text.size() > kMaxNoteCharacters
                          ? note.text.left(kMaxNoteCharacters - 1) + u'…'
                          : note.text);
        text->setFont(font);
        text->setColor(Qt::black);
        text->setBrush(QColor(255, 255, 255, 215));
        text->setPen(QPen(QColor(0xc2, 0x18, 0x5b), 1));
        text->setPadding(QMargins(3, 1, 3, 1));
    }
}

QCPAbstractItem* HeatmapFigure::addBand(size_t panel, double left, double top, double right,
                                        double bottom, const QPen& pen, const QBrush& brush) {
    auto* box = new QCPItemRect(m_plot);
    box->setClipAxisRect(m_drawn[panel].rect);
    for (auto* corner : {box->topLeft, box->bottomRight})
        corner->setAxes(m_drawn[panel].rect->axis(QCPAxis::atBottom),
                        m_drawn[panel].rect->axis(QCPAxis::atLeft));
    box->topLeft->setCoords(left, top);
    box->bottomRight->setCoords(right, bottom);
    box->setPen(pen);
    box->setBrush(brush);
    return box;
}

void HeatmapFigure::setHighlight(std::optional<std::pair<int, int>> rowCol) {
    for (QCPAbstractItem* item : m_highlight) m_plot->removeItem(item);
    m_highlight.clear();
    if (!rowCol) return;
    const auto [row, col] = *rowCol;
    for (size_t i = 0; i < m_drawn.size(); ++i) {
        const HeatmapData& d = m_spec.panels[i].data;
        if (row < 0 || col < 0 || row >= d.rows || col >= d.cols) continue;
        m_highlight.push_back(addBand(i, col - 0.5, row - 0.5, col + 0.5, row + 0.5,
                                      QPen(QColor(0xff, 0x8c, 0x00), 2.5), Qt::NoBrush));
    }
}

void HeatmapFigure::setPinned(std::optional<int> row, std::optional<int> column) {
    for (QCPAbstractItem* item : m_pinned) m_plot->removeItem(item);
    m_pinned.clear();
    const QPen pen(QColor(0xc2, 0x18, 0x5b), 1.5, Qt::DashLine);
    const QBrush brush(QColor(0xc2, 0x18, 0x5b, 40));
    for (size_t i = 0; i < m_drawn.size(); ++i) {
        const HeatmapData& d = m_spec.panels[i].data;
        if (row && *row >= 0 && *row < d.rows)
            m_pinned.push_back(addBand(i, -0.5, *row - 0.5, d.cols - 0.5, *row + 0.5, pen, brush));
        if (column && *column >= 0 && *column < d.cols)
            m_pinned.push_back(
                addBand(i, *column - 0.5, -0.5, *column + 0.5, d.rows - 0.5, pen, brush));
    }
}

void HeatmapFigure::addScale(const HeatmapData& data, int column) {
    auto* scale = new QCPColorScale(m_plot);
    m_grid->addElement(0, column, scale);
    scale->setType(QCPAxis::atRight);
    scale->setBarWidth(14);
    scale->setMarginGroup(QCP::msTop | QCP::msBottom, m_marginGroup);
    scale->axis()->setLabel(data.scaleLabel);
    scale->setGradient(data.diverging ? divergingGradient(m_colors.diverging)
                                      : sequentialGradient(m_colors.sequential));
    scale->setDataRange(QCPRange(data.low, data.high));
    m_scales.push_back({scale, data.diverging});
}

QCPColorScale* HeatmapFigure::colorScale(int group) const { return m_scales.at(group).scale; }

void HeatmapFigure::layoutNow() {
    QCPLayoutGrid* layout = m_plot->plotLayout();
    layout->update(QCPLayoutElement::upPreparation);
    layout->update(QCPLayoutElement::upMargins);
    layout->update(QCPLayoutElement::upLayout);
}

void HeatmapFigure::fitCells(const QSize& size) {
    if (!m_grid || m_drawn.empty() || size.isEmpty()) return;
    m_plot->setViewport(QRect(QPoint(0, 0), size));
    if (m_title) m_title->setText(wrappedTitle(m_spec.title, m_title->font(), size.width()));
    // No panel is larger than the viewport, so its one-line-per-label stride is a lower bound:
    // starting there spares laying out hundreds of labels that would be thinned anyway.
    for (size_t i = 0; i < m_drawn.size(); ++i) {
        Drawn& drawn = m_drawn[i];
        const HeatmapData& d = m_spec.panels[i].data;
        const double lineHeight =
            QFontMetrics(drawn.rect->axis(QCPAxis::atLeft)->tickLabelFont()).height() + 1;
        const QRectF w = panelWindow(i);
        drawn.rowStride = strideFor(lineHeight, size.height() / w.height());
        drawn.colStride = strideFor(lineHeight, size.width() / w.width());
        setLabelTicks(drawn.rect->axis(QCPAxis::atBottom), d.colLabels, drawn.colStride);
        setLabelTicks(drawn.rect->axis(QCPAxis::atLeft), d.rowLabels, drawn.rowStride);
    }
    if (!m_spec.squareCells) {
        m_grid->setMargins(QMargins());
        layoutNow();
        updateTickStrides();
    } else {
        // Fewer labels can narrow the margins, so pad once more after thinning them.
        padToAspect();
        if (updateTickStrides()) padToAspect();
    }
    updateSamples();
}

// Pads the grid so every panel keeps its data's aspect: the width to spare is what every row can
// give up (the least over rows of the sum in the row), the height what every column can.
void HeatmapFigure::padToAspect() {
    m_grid->setMargins(QMargins());
    layoutNow();
    std::map<int, int> rowExcess;
    std::map<int, int> columnExcess;
    for (size_t i = 0; i < m_drawn.size(); ++i) {
        const HeatmapData& d = m_spec.panels[i].data;
        const double aspect = static_cast<double>(d.cols) / d.rows;
        const QRect r = m_drawn[i].rect->rect();
        rowExcess[m_drawn[i].row] +=
            std::max(0, r.width() - static_cast<int>(std::lround(r.height() * aspect)));
        columnExcess[m_drawn[i].column] +=
            std::max(0, r.height() - static_cast<int>(r.width() / aspect));
    }
    auto least = [](const std::map<int, int>& excess) {
        int m = INT_MAX;
        for (const auto& [index, value] : excess) m = std::min(m, value);
        return m == INT_MAX ? 0 : m;
    };
    const int excessWidth = least(rowExcess);
    const int excessHeight = least(columnExcess);
    if (excessWidth > 0)
        m_grid->setMargins(QMargins(excessWidth / 2, 0, excessWidth - excessWidth / 2, 0));
    else if (excessHeight > 0)
        m_grid->setMargins(QMargins(0, excessHeight / 2, 0, excessHeight - excessHeight / 2));
    layoutNow();
}

bool HeatmapFigure::updateTickStrides() {
    bool changed = false;
    for (size_t i = 0; i < m_drawn.size(); ++i) {
        Drawn& drawn = m_drawn[i];
        const HeatmapData& d = m_spec.panels[i].data;
        QCPAxis* x = drawn.rect->axis(QCPAxis::atBottom);
        QCPAxis* y = drawn.rect->axis(QCPAxis::atLeft);
        const QRect r = drawn.rect->rect();
        const QRectF w = panelWindow(i);
        const double lineHeight = QFontMetrics(y->tickLabelFont()).height() + 1;
        // Rotated labels need their line height across the axis, upright ones their width.
        double xNeed = lineHeight * 1.15;
        if (x->tickLabelRotation() == 0) {
            const QFontMetrics xMetrics(x->tickLabelFont());
            int widest = 0;
            for (const QString& label : d.colLabels)
                widest = std::max(widest, xMetrics.horizontalAdvance(elided(label)));
            xNeed = widest + 6.0;
        }
        const int rowStride = strideFor(lineHeight, r.height() / w.height());
        const int colStride = strideFor(xNeed, r.width() / w.width());
        if (rowStride != drawn.rowStride) {
            drawn.rowStride = rowStride;
            setLabelTicks(y, d.rowLabels, rowStride);
            changed = true;
        }
        if (colStride != drawn.colStride) {
            drawn.colStride = colStride;
            setLabelTicks(x, d.colLabels, colStride);
            changed = true;
        }
    }
    return changed;
}

}  // namespace qkv::ui
