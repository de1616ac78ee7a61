#pragma once
// The sentence editor, with example sentences (resources/examples/sentences.txt) one click away.
#include <QStringList>
#include <QWidget>

class QLineEdit;

namespace qkv::ui {

class LabDocument;

QStringList exampleSentences();

class SentenceBar : public QWidget {
    Q_OBJECT
  public:
    explicit SentenceBar(LabDocument& document, QWidget* parent = nullptr);
    QLineEdit* editor() const { return m_editor; }

  private:
    void onDocumentTextChanged(const QString& text);

    LabDocument& m_document;
    QLineEdit* m_editor;
};

}  // namespace qkv::ui
