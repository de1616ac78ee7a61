#pragma once
// File ▸ Open from Hugging Face…: the models already in the Hugging Face cache (id, revision,
// size on disk, architecture, and whether QKV Lab reads it) and a field for any model id.
#include <QDialog>

class QLabel;
class QLineEdit;
class QPushButton;
class QTableWidget;

namespace qkv::ui {

class HubModelsDialog : public QDialog {
    Q_OBJECT
  public:
    explicit HubModelsDialog(QWidget* parent = nullptr);
    // What to open: a model id (its cached main revision) or a snapshot folder.
    QString location() const { return m_location; }

  private:
    void fill();
    void choose();

    QTableWidget* m_table = nullptr;
    QLineEdit* m_id = nullptr;
    QPushButton* m_open = nullptr;
    QString m_location;
};

}  // namespace qkv::ui
