#include "ui/window/empty_state.h"

#include <QDir>
#include <QLabel>
#include <QPushButton>
#include <QVBoxLayout>

#include "ui/support/model_locator.h"
#include "ui/window/recent_models.h"

namespace qkv::ui {

EmptyState::EmptyState(QWidget* parent) : QWidget(parent) {
    auto* outer = new QVBoxLayout(this);
    outer->addStretch(2);
    auto* title = new QLabel(tr("QKV Lab"), this);
    title->setStyleSheet(QStringLiteral("font-size: 28px; font-weight: bold;"));
    title->setAlignment(Qt::AlignCenter);
    outer->addWidget(title);
    auto* question = new QLabel(
        tr("Why does an attention head need three matrices W_Q, W_K and W_V — and what happens "
           "when they are shared?"),
        this);
    question->setAlignment(Qt::AlignCenter);
    question->setWordWrap(true);
    question->setStyleSheet(QStringLiteral("font-size: 15px; color: palette(mid);"));
    outer->addWidget(question);
    outer->addSpacing(18);
    auto* open = new QPushButton(tr("Open a model folder…"), this);
    open->setDefault(true);
    open->setMinimumWidth(260);
    open->setStyleSheet(QStringLiteral("font-size: 15px; padding: 8px 18px;"));
    outer->addWidget(open, 0, Qt::AlignHCenter);
    auto* hint = new QLabel(tr("A Hugging Face folder with config.json, model.safetensors and "
                               "tokenizer files (GPT-2, Pythia, Llama, Qwen2, Gemma-2, BERT, …). "
                               "You can also drop it here."),
                            this);
    hint->setAlignment(Qt::AlignCenter);
    hint->setWordWrap(true);
    outer->addWidget(hint);
    outer->addSpacing(12);
    m_models = new QVBoxLayout;
    outer->addLayout(m_models);
    outer->addStretch(3);
    connect(open, &QPushButton::clicked, this, &EmptyState::openRequested);
    refresh();
}

void EmptyState::refresh() {
    while (QLayoutItem* item = m_models->takeAt(0)) {
        delete item->widget();
        delete item;
    }
    auto addGroup = [this](const QString& heading, const QList<QPair<QString, QString>>& entries) {
        if (entries.isEmpty()) return;
        auto* label = new QLabel(heading, this);
        label->setAlignment(Qt::AlignCenter);
        label->setStyleSheet(QStringLiteral("font-weight: bold; margin-top: 10px;"));
        m_models->addWidget(label);
        for (const auto& [name, folder] : entries) {
            auto* button = new QPushButton(name, this);
            button->setFlat(true);
            button->setToolTip(folder);
            button->setCursor(Qt::PointingHandCursor);
            m_models->addWidget(button, 0, Qt::AlignHCenter);
            connect(button, &QPushButton::clicked, this,
                    [this, f = folder] { emit modelChosen(f); });
        }
    };
    QList<QPair<QString, QString>> recent;
    for (const QString& folder : RecentModels::list())
        recent.append({QDir(folder).dirName(), folder});
    addGroup(tr("Recent models"), recent);
    QList<QPair<QString, QString>> examples;
    for (const ExampleModel& model : exampleModels()) examples.append({model.name, model.folder});
    addGroup(tr("Example models"), examples);
}

}  // namespace qkv::ui
