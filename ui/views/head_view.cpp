#include "ui/views/head_view.h"

#include "ui/document/lab_document.h"
#include "ui/views/cell_tooltip.h"
#include "ui/views/heatmap_widget.h"

namespace qkv::ui {

HeadView::HeadView(LabDocument& document, QWidget* parent) : HeadFigureView(document, parent) {}

FigureSpec HeadView::buildFigure(const HeadFigureInput& input) const { return headFigure(input); }

QString HeadView::cellValues(const HeatmapCell& cell) const {
    const LabDocument& d = document();
    return headCellValues(*d.snapshot()->trace, d.layer(), d.head(), cell.row, cell.col,
                          d.shownMask(d.layer()));
}

}  // namespace qkv::ui
