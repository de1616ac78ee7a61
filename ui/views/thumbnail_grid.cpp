#include "ui/views/thumbnail_grid.h"

#include <QMouseEvent>
#include <QPainter>

#include "ui/plot/cell_sampling.h"

namespace qkv::ui {
namespace {

constexpr int kGap = 6;
constexpr int kLabelWidth = 34;   // "L11" left of each row
constexpr int kLabelHeight = 18;  // "H11" above each column

// The head's attention as an image of at most kMaxPixels a side, read straight from the matrix
// (never a full n x n image): one pixel per cell where they fit, else each pixel the strongest
// of the cells it covers, so a sharp head stays sharp (cell_sampling.h). An implicit map is
// signed: the cell farthest from zero shows, on the diverging map centred at 0 (±its largest).
QImage attentionImage(const RowMatrixXf& a, bool implicit, QCPColorGradient& gradient) {
    const int rows = static_cast<int>(a.rows()), cols = static_cast<int>(a.cols());
    const int side = ThumbnailGrid::kMaxPixels;
    const AxisSampling rowSamples = sampleAxis(-0.5, rows - 0.5, rows, side);
    const AxisSampling colSamples = sampleAxis(-0.5, cols - 0.5, cols, side);
    const std::vector<double> samples = sampleCells(
        rowSamples, colSamples, implicit ? Reduction::LargestMagnitude : Reduction::Largest,
        [&a](int r, int c) { return a(r, c); });
    const double largest = implicit && a.size() > 0 ? a.cwiseAbs().maxCoeff() : 1.0;
    const QCPRange range = implicit ? QCPRange(-largest, largest) : QCPRange(0, 1);
    QImage image(colSamples.size(), rowSamples.size(), QImage::Format_RGB32);
    for (int i = 0; i < image.height(); ++i)
        gradient.colorize(samples.data() + static_cast<size_t>(i) * image.width(), range,
                          reinterpret_cast<QRgb*>(image.scanLine(i)), image.width());
    return image;
}

}  // namespace

ThumbnailGrid::ThumbnailGrid(QWidget* parent) : QWidget(parent) {
    setAutoFillBackground(true);
    setBackgroundRole(QPalette::Base);
    setToolTip(tr("Click a head to open it"));
}

void ThumbnailGrid::setContent(const AttentionTrace& trace, const ColorScheme& colors,
                               std::pair<int, int> current) {
    QCPColorGradient sequential = sequentialGradient(colors.sequential),
                     diverging = divergingGradient(colors.diverging);
    m_images.assign(trace.layerCount(), {});
    for (int l = 0; l < trace.layerCount(); ++l)  // each layer its own heads (a hybrid's vary)
        for (int h = 0; h < trace.headCount(l); ++h) {
            const bool implicit = trace.isImplicit(l);
            m_images[l].push_back(attentionImage(trace.probabilities(l, h), implicit,
                                                 implicit ? diverging : sequential));
        }
    m_current = current;
    updateGeometry();
    update();
}

void ThumbnailGrid::clear() {
    m_images.clear();
    update();
}

int ThumbnailGrid::mostHeads() const {
    std::size_t most = 0;
    for (const auto& layer : m_images) most = std::max(most, layer.size());
    return static_cast<int>(most);
}

QSize ThumbnailGrid::sizeHint() const {
    const int heads = mostHeads();
    return {kLabelWidth + heads * (kMaxPixels + kGap),
            kLabelHeight + static_cast<int>(m_images.size()) * (kMaxPixels + kGap)};
}

int ThumbnailGrid::sideFor(const QSize& size) const {
    const int layers = static_cast<int>(m_images.size());
    const int heads = mostHeads();
    if (heads == 0) return kMaxPixels;
    const int byWidth = (size.width() - kLabelWidth) / heads - kGap;
    const int byHeight = (size.height() - kLabelHeight) / layers - kGap;
    return std::clamp(std::min(byWidth, byHeight), 12, 160);
}

QRect ThumbnailGrid::cellRect(int layer, int head, int side) const {
    return {kLabelWidth + head * (side + kGap), kLabelHeight + layer * (side + kGap), side, side};
}

std::optional<std::pair<int, int>> ThumbnailGrid::headAt(const QPoint& point) const {
    const int side = sideFor(size());
    for (int l = 0; l < static_cast<int>(m_images.size()); ++l)
        for (int h = 0; h < static_cast<int>(m_images[l].size()); ++h)
            if (cellRect(l, h, side).contains(point)) return std::pair{l, h};
    return std::nullopt;
}

QPoint ThumbnailGrid::headCenter(int layer, int head) const {
    return cellRect(layer, head, sideFor(size())).center();
}

void ThumbnailGrid::paint(QPainter& painter, const QSize& size) const {
    const int layers = static_cast<int>(m_images.size());
    const int heads = mostHeads();
    if (heads == 0) return;
    const int side = sideFor(size);
    painter.setPen(palette().color(QPalette::Text));
    for (int h = 0; h < heads; ++h)
        painter.drawText(QRect(cellRect(0, h, side).left(), 0, side, kLabelHeight), Qt::AlignCenter,
                         QStringLiteral("H%1").arg(h));
    for (int l = 0; l < layers; ++l) {
        painter.drawText(QRect(0, cellRect(l, 0, side).top(), kLabelWidth - 4, side),
                         Qt::AlignRight | Qt::AlignVCenter, QStringLiteral("L%1").arg(l));
        for (int h = 0; h < static_cast<int>(m_images[l].size()); ++h)
            painter.drawImage(cellRect(l, h, side), m_images[l][h]);
    }
    painter.setPen(QPen(palette().color(QPalette::Highlight), 3));
    painter.setBrush(Qt::NoBrush);
    painter.drawRect(cellRect(m_current.first, m_current.second, side).adjusted(-2, -2, 2, 2));
}

void ThumbnailGrid::paintEvent(QPaintEvent*) {
    QPainter painter(this);
    paint(painter, size());
}

void ThumbnailGrid::mousePressEvent(QMouseEvent* event) {
    if (const auto head = headAt(event->pos())) emit headClicked(head->first, head->second);
}

}  // namespace qkv::ui
