#pragma once
// The Overview's thumbnails (bertviz's model view): every layer x head as a small picture of its
// attention over the sentence, in the sequential colour map; a click opens that head. Long
// sentences are drawn downsampled (each thumbnail at most kMaxPixels wide, each pixel the
// strongest of the cells it covers).
#include <QImage>
#include <QWidget>
#include <optional>
#include <utility>
#include <vector>

#include "core/model/attention_trace.h"
#include "ui/plot/color_maps.h"

namespace qkv::ui {

class ThumbnailGrid : public QWidget {
    Q_OBJECT
  public:
    static constexpr int kMaxPixels = 64;
    explicit ThumbnailGrid(QWidget* parent = nullptr);

    // One thumbnail per (layer, head) of the trace; `current` is outlined.
    void setContent(const AttentionTrace& trace, const ColorScheme& colors,
                    std::pair<int, int> current);
    void clear();
    bool isEmpty() const { return m_images.empty(); }
    const QImage& thumbnail(int layer, int head) const { return m_images.at(layer).at(head); }
    int thumbnailSize() const { return sideFor(size()); }  // drawn size, fitted to the widget
    std::optional<std::pair<int, int>> headAt(const QPoint& point) const;
    QPoint headCenter(int layer, int head) const;
    void paint(QPainter& painter, const QSize& size) const;
    QSize sizeHint() const override;

  signals:
    void headClicked(int layer, int head);

  protected:
    void paintEvent(QPaintEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;

  private:
    int mostHeads() const;  // of any layer: the grid's width
    // The largest thumbnail side that fits every head into `size` (small grids are drawn larger
    // than kMaxPixels, cells staying sharp).
    int sideFor(const QSize& size) const;
    QRect cellRect(int layer, int head, int side) const;

    std::vector<std::vector<QImage>> m_images;  // [layer][head]
    std::pair<int, int> m_current{0, 0};
};

}  // namespace qkv::ui
