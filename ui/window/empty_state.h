#pragma once
// What the window shows before any model is open: what the lab is for, an Open button, the
// recent models and the bundled examples.
#include <QWidget>

class QVBoxLayout;

namespace qkv::ui {

class EmptyState : public QWidget {
    Q_OBJECT
  public:
    explicit EmptyState(QWidget* parent = nullptr);
    void refresh();  // re-reads the recent and example models

  signals:
    void openRequested();
    void modelChosen(QString folder);

  private:
    QVBoxLayout* m_models;
};

}  // namespace qkv::ui
