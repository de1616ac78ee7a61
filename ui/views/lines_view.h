#pragma once
// The Lines tab (bertviz's head view): the sentence in two columns, queries on the left and the
// keys they read on the right, a line from each query to each key with opacity A_ij. The current
// head alone or every head of the layer overlaid, one colour per head. Hovering a token shows
// only its lines. Long sentences scroll; each head draws at most its strongest lines, and the
// view says how many it left out.
#include <optional>
#include <vector>

#include "core/analysis/attention_links.h"
#include "ui/views/document_view.h"

class QComboBox;
class QLabel;
class QScrollArea;

namespace qkv::ui {

class LinesCanvas;

class LinesView : public DocumentView {
    Q_OBJECT
  public:
    explicit LinesView(LabDocument& document, QWidget* parent = nullptr);
    bool allHeads() const;
    void setAllHeads(bool all);
    LinesCanvas* canvas() const { return m_canvas; }
    QString status() const;  // the line under the controls: what is drawn, what was left out

  protected:
    void refresh() override;

  private:
    QComboBox* m_heads;
    QLabel* m_status;
    QScrollArea* m_scroll;
    LinesCanvas* m_canvas;
};

// One head's lines in its colour.
struct HeadLines {
    int head = 0;
    QColor color;
    AttentionLinks links;
};

// The drawing: token columns and lines, hover filtering; paint() also serves export.
class LinesCanvas : public QWidget {
    Q_OBJECT
  public:
    static constexpr int kRowHeight = 20;
    explicit LinesCanvas(QWidget* parent = nullptr);
    void setContent(QStringList queries, QStringList keys, std::vector<HeadLines> heads);
    void paint(QPainter& painter, const QSize& size) const;
    // The token under the hover: (column 0 queries / 1 keys, index).
    std::optional<std::pair<int, int>> hovered() const { return m_hover; }
    void setHovered(std::optional<std::pair<int, int>> hover);
    void setPinned(std::optional<int> query, std::optional<int> key);  // marked in its column
    int drawnLines() const;  // lines visible under the current hover

  protected:
    void paintEvent(QPaintEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void leaveEvent(QEvent* event) override;
    QSize sizeHint() const override;

  private:
    std::optional<std::pair<int, int>> tokenAt(const QPoint& point) const;
    bool shows(const AttentionLink& link) const;

    QStringList m_queries, m_keys;
    std::vector<HeadLines> m_heads;
    std::optional<std::pair<int, int>> m_hover;
    std::optional<int> m_pinnedQuery, m_pinnedKey;
};

}  // namespace qkv::ui
