#include "ui/views/sentence_bar.h"

#include <QFile>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QToolButton>
#include <QVBoxLayout>

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
    auto* rows = new QVBoxLayout(this);
    rows->setContentsMargins(0, 0, 0, 0);
    auto* layout = new QHBoxLayout;
    rows->addLayout(layout);
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

    m_targetRow = new QWidget(this);
    auto* target = new QHBoxLayout(m_targetRow);
    target->setContentsMargins(0, 0, 0, 0);
    auto* label = new QLabel(tr("&Target:"), m_targetRow);
    m_target = new QLineEdit(m_targetRow);
    m_target->setPlaceholderText(
        tr("the target sentence the decoder reads — empty: the model writes its translation"));
    m_target->setClearButtonEnabled(true);
    m_target->setFont(font);
    label->setBuddy(m_target);
    target->addWidget(label);
    target->addWidget(m_target, 1);
    rows->addWidget(m_targetRow);

    m_editor->setText(document.text());
    connect(m_editor, &QLineEdit::textChanged, &document, &LabDocument::setText);
    connect(&document, &LabDocument::textChanged, this, &SentenceBar::onDocumentTextChanged);
    connect(m_target, &QLineEdit::textChanged, &document, &LabDocument::setTargetText);
    connect(&document, &LabDocument::targetTextChanged, this, [this](const QString& text) {
        if (m_target->text() != text) m_target->setText(text);
    });
    connect(&document, &LabDocument::modelChanged, this, &SentenceBar::onModelChanged);
    onModelChanged();
}

void SentenceBar::onModelChanged() {
    const Model* model = m_document.model();
    m_targetRow->setVisible(model && model->architecture().isEncoderDecoder());
    // Without a tokenizer the box says, where the user types, how to give the model tokens.
    m_editor->setPlaceholderText(model && !model->tokenizer()
                                     ? tr("This model has no tokenizer: type token ids after a "
                                          "'#', for example #464 3807 373")
                                     : tr("Type a sentence…"));
    m_editor->setToolTip(model && !model->tokenizer()
                             ? tr("The tokenizer could not be loaded: %1")
                                   .arg(QString::fromStdString(model->tokenizerError()))
                             : QString());
}

void SentenceBar::onDocumentTextChanged(const QString& text) {
    if (m_editor->text() != text) m_editor->setText(text);
}

}  // namespace qkv::ui
