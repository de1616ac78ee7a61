#include "ui/views/sentence_bar.h"

#include <QFile>
#include <QHBoxLayout>
#include <QLineEdit>
#include <QMenu>
#include <QToolButton>

#include "ui/document/lab_document.h"

namespace qkv::ui {

QStringList exampleSentences() {
    QFile file(QStringLiteral(":/examples/sentences.txt"));
    if (!file.open(QIODevice::ReadOnly | QIODevice::Text)) return {};
    QStringList sentences;
    for (const QString& line : QString::fromUtf8(file.readAll()).split(u'\n'))
        if (!line.trimmed().isEmpty()) sentences << line.trimmed();
    return sentences;
}

SentenceBar::SentenceBar(LabDocument& document, QWidget* parent)
    : QWidget(parent), m_document(document) {
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    m_editor = new QLineEdit(this);
    m_editor->setPlaceholderText(tr("Type a sentence…"));
    m_editor->setClearButtonEnabled(true);
    QFont font = m_editor->font();
    font.setPointSizeF(font.pointSizeF() * 1.25);
    m_editor->setFont(font);
    layout->addWidget(m_editor, 1);

    auto* examples = new QToolButton(this);
    examples->setText(tr("Examples"));
    examples->setPopupMode(QToolButton::InstantPopup);
    auto* menu = new QMenu(examples);
    for (const QString& sentence : exampleSentences())
        menu->addAction(sentence, this, [this, sentence] { m_editor->setText(sentence); });
    examples->setMenu(menu);
    layout->addWidget(examples);

    m_editor->setText(document.text());
    connect(m_editor, &QLineEdit::textChanged, &document, &LabDocument::setText);
    connect(&document, &LabDocument::textChanged, this, &SentenceBar::onDocumentTextChanged);
}

void SentenceBar::onDocumentTextChanged(const QString& text) {
    if (m_editor->text() != text) m_editor->setText(text);
}

}  // namespace qkv::ui
