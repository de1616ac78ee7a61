#pragma once
// Lays widgets out left to right and wraps them onto new lines, like words (Qt's flow layout
// example, trimmed to what the token chips and the control rows need): a row of controls wraps
// in a narrow window instead of raising its minimum width.
#include <QLayout>
#include <QList>
#include <initializer_list>

namespace qkv::ui {

class FlowLayout : public QLayout {
  public:
    explicit FlowLayout(QWidget* parent, int spacing = 4);
    ~FlowLayout() override;

    void addItem(QLayoutItem* item) override;
    int count() const override { return static_cast<int>(m_items.size()); }
    QLayoutItem* itemAt(int index) const override { return m_items.value(index); }
    QLayoutItem* takeAt(int index) override;
    Qt::Orientations expandingDirections() const override { return {}; }
    bool hasHeightForWidth() const override { return true; }
    int heightForWidth(int width) const override { return arrange(QRect(0, 0, width, 0), false); }
    QSize minimumSize() const override;
    QSize sizeHint() const override { return minimumSize(); }
    void setGeometry(const QRect& rect) override;

  private:
    int arrange(const QRect& rect, bool apply) const;

    QList<QLayoutItem*> m_items;
    int m_spacing;
};

// A widget holding `widgets` side by side, which a flow layout keeps on one line (a label and
// its field).
QWidget* oneLine(QWidget* parent, std::initializer_list<QWidget*> widgets);

}  // namespace qkv::ui
