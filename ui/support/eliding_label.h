#pragma once
// A one-line label that, given less width than its text needs, shows the text cut with "…" at
// the end (its tooltip keeps the whole text): the status bar's fields, which would otherwise set
// the window's minimum width.
#include <QLabel>

namespace qkv::ui {

class ElidingLabel : public QLabel {
  public:
    explicit ElidingLabel(QWidget* parent = nullptr);
    QSize minimumSizeHint() const override;

  protected:
    void paintEvent(QPaintEvent* event) override;
};

}  // namespace qkv::ui
