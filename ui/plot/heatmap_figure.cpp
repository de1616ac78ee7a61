#include "ui/plot/heatmap_figure.h"

#include <qcustomplot.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "ui/plot/tick_labels.h"

namespace qkv::ui {
namespace {

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
    m_marginGroup = nullptr;
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
    // Panels of a row that show the same rows share them: the first one names them, and the
    // others keep that room for their cells. Without square cells they always share them.
    const auto first = std::find_if(m_drawn.begin(), m_drawn.end(),
                                    [row](const Drawn& drawn) { return drawn.row == row; });
    const bool rowLabels = first == m_drawn.end() ||
                           (m_spec.squareCells &&
                            m_spec.panels[first - m_drawn.begin()].data.rowLabels != d.rowLabels);
    if (m_spec.squareCells) rect->setSizeConstraintRect(QCPLayoutElement::scrInnerRect);

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

// Square cells: every panel's cells get one size, the largest at which the grid's columns fit its
// width and its rows its height (each panel's own margins, and the colour scales, counted); the
// panels keep that inner size, and what is left pads the grid evenly.
void HeatmapFigure::padToAspect() {
    m_grid->setMargins(QMargins());
    for (const Drawn& drawn : m_drawn) {
        drawn.rect->setMinimumSize(0, 0);
        drawn.rect->setMaximumSize(QWIDGETSIZE_MAX, QWIDGETSIZE_MAX);
    }
    layoutNow();
    // Per grid column (row): the pixels it needs besides its cells, and its cells.
    struct Extent {
        double fixed = 0;
        double cells = 0;
    };
    std::map<int, Extent> columns;
    std::map<int, Extent> rows;
    for (int r = 0; r < m_grid->rowCount(); ++r)
        for (int c = 0; c < m_grid->columnCount(); ++c) {
            QCPLayoutElement* element = m_grid->element(r, c);
            if (!element) continue;
            const auto drawn = std::find_if(m_drawn.begin(), m_drawn.end(), [&](const Drawn& d) {
                return d.row == r && d.column == c;
            });
            Extent& column = columns[c];
            if (drawn == m_drawn.end()) {  // a colour scale: as wide as it is, any height
                column.fixed = std::max(column.fixed, double(element->outerRect().width()));
                continue;
            }
            const QRectF w = panelWindow(drawn - m_drawn.begin());
            const QMargins m = drawn->rect->margins();
            column.fixed = std::max(column.fixed, double(m.left() + m.right()));
            column.cells = std::max(column.cells, w.width());
            rows[r].fixed = std::max(rows[r].fixed, double(m.top() + m.bottom()));
            rows[r].cells = std::max(rows[r].cells, w.height());
        }
    // The cell size at which `extents`, with `spacing` between them, fill `room`.
    const auto cellFor = [](const std::map<int, Extent>& extents, int spacing, int room) {
        double fixed = spacing * std::max(0.0, double(extents.size()) - 1), cells = 0;
        for (const auto& [index, e] : extents) {
            fixed += e.fixed;
            cells += e.cells;
        }
        return cells > 0 ? std::max(0.0, (room - fixed) / cells) : 0.0;
    };
    const QRect area = m_grid->rect();
    const double cell = std::min(cellFor(columns, m_grid->columnSpacing(), area.width()),
                                 cellFor(rows, m_grid->rowSpacing(), area.height()));
    for (size_t i = 0; i < m_drawn.size(); ++i) {
        const QRectF w = panelWindow(i);
        const QSize inner(std::max(1, int(w.width() * cell)), std::max(1, int(w.height() * cell)));
        m_drawn[i].rect->setMinimumSize(inner);
        m_drawn[i].rect->setMaximumSize(inner);
    }
    // What the cells leave over, split evenly on both sides.
    const auto leftOver = [cell](const std::map<int, Extent>& extents, int spacing, int room) {
        double used = spacing * std::max(0.0, double(extents.size()) - 1);
        for (const auto& [index, e] : extents) used += e.fixed + std::floor(e.cells * cell);
        return std::max(0, room - static_cast<int>(std::ceil(used)));
    };
    const int width = leftOver(columns, m_grid->columnSpacing(), area.width());
    const int height = leftOver(rows, m_grid->rowSpacing(), area.height());
    m_grid->setMargins(QMargins(width / 2, height / 2, width - width / 2, height - height / 2));
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
        const LabelRun columns =
            needsRotation(d.colLabels) ? LabelRun::Slanted : LabelRun::SideBySide;
        changed |= applyTickFit(
            y, d.rowLabels,
            fitTicks(y->tickLabelFont(), d.rowLabels, LabelRun::Stacked, r.height() / w.height()),
            drawn.rowStride);
        changed |=
            applyTickFit(x, d.colLabels,
                         fitTicks(x->tickLabelFont(), d.colLabels, columns, r.width() / w.width()),
                         drawn.colStride);
    }
    return changed;
}

}  // namespace qkv::ui
