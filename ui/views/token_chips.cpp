#include "ui/views/token_chips.h"

#include <QLabel>
#include <QVBoxLayout>

#include "ui/document/lab_document.h"
#include "ui/views/flow_layout.h"

namespace qkv::ui {
namespace {

QString chipStyle(const QString& background, const QString& border, const QString& color) {
    return QStringLiteral("QLabel { background: %1; border: 1px solid %2; border-radius: 6px; "
                          "padding: 2px 6px; color: %3; }")
        .arg(background, border, color);
}

}  // namespace

TokenChips::TokenChips(LabDocument& document, QWidget* parent)
    : QWidget(parent), m_document(document) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);
    m_chipArea = new QWidget(this);
    m_flow = new FlowLayout(m_chipArea, 4);
    m_flow->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_chipArea);
    m_notice = new QLabel(this);
    m_notice->setStyleSheet(QStringLiteral("color: #b35900;"));
    m_notice->setWordWrap(true);
    m_notice->hide();
    layout->addWidget(m_notice);
    connect(&document, &LabDocument::snapshotChanged, this, &TokenChips::rebuild);
    connect(&document, &LabDocument::tokenPairChanged, this, &TokenChips::highlight);
}

QStringList TokenChips::chipTexts() const {
    QStringList texts;
    for (const QLabel* chip : m_chips) texts << chip->text();
    return texts;
}

QString TokenChips::noticeText() const { return m_notice->isVisible() ? m_notice->text() : QString(); }

void TokenChips::rebuild() {
    qDeleteAll(m_chips);
    m_chips.clear();
    const auto snapshot = m_document.snapshot();
    m_notice->setVisible(snapshot && snapshot->truncatedFrom);
    if (!snapshot) return;
    if (snapshot->truncatedFrom)
        m_notice->setText(tr("The sentence has %1 tokens; the model reads at most %2, so the last "
                             "%3 were dropped.")
                              .arg(*snapshot->truncatedFrom)
                              .arg(snapshot->tokens.size())
                              .arg(*snapshot->truncatedFrom -
                                   static_cast<int>(snapshot->tokens.size())));
    for (size_t i = 0; i < snapshot->tokens.size(); ++i) {
        const ShownToken& token = snapshot->tokens[i];
        auto* chip = new QLabel(token.label, m_chipArea);
        chip->setTextFormat(Qt::PlainText);  // "<s>" is a token, not markup
        chip->setToolTip(tr("token %1 · id %2 · piece %3")
                             .arg(i)
                             .arg(token.id)
                             .arg(token.piece.toHtmlEscaped()));
        chip->setProperty("special", token.special);
        m_flow->addWidget(chip);
        m_chips.append(chip);
    }
    highlight();
    m_chipArea->updateGeometry();
}

void TokenChips::highlight() {
    const auto pair = m_document.tokenPair();
    for (int i = 0; i < m_chips.size(); ++i) {
        QLabel* chip = m_chips[i];
        if (pair && i == pair->query)
            chip->setStyleSheet(chipStyle("#ffe0b2", "#e67e22", "#4a2500"));
        else if (pair && i == pair->key)
            chip->setStyleSheet(chipStyle("#d6eaf8", "#2e86c1", "#0b2e4a"));
        else if (chip->property("special").toBool())
            chip->setStyleSheet(chipStyle("#f2f2f2", "#d0d0d0", "#888888"));
        else
            chip->setStyleSheet(chipStyle("#eef1f6", "#c5ccd8", "#1f2a44"));
    }
}

}  // namespace qkv::ui
