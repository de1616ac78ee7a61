#pragma once
// The sentence editor, with example sentences (resources/examples/sentences.txt) one click away,
// and for encoder-decoder models a second line: the target sentence the decoder reads, which the
// model fills with its own translation while it is empty.
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
    QLineEdit* targetEditor() const { return m_target; }

  private:
    void onDocumentTextChanged(const QString& text);
    void onModelChanged();

    LabDocument& m_document;
    QLineEdit* m_editor;
    QWidget* m_targetRow;
    QLineEdit* m_target;
};

}  // namespace qkv::ui
