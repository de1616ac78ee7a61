#include "ui/views/token_chips.h"

#include <QEvent>
#include <QLabel>
#include <QScrollArea>
#include <QStyle>
#include <QVBoxLayout>

#include "ui/document/lab_document.h"
#include "ui/views/flow_layout.h"

namespace qkv::ui {
namespace {

// One style sheet for all chips; a chip's "kind" property picks its colours, so updating a
// chip never re-parses a style sheet.
const char* kChipStyle = R"(
QLabel { border-radius: 6px; padding: 2px 6px; border: 1px solid #c5ccd8;
         background: #eef1f6; color: #1f2a44; }
QLabel[kind="special"] { border-color: #d0d0d0; background: #f2f2f2; color: #888888; }
QLabel[kind="query"] { border-color: #e67e22; background: #ffe0b2; color: #4a2500; }
QLabel[kind="key"] { border-color: #2e86c1; background: #d6eaf8; color: #0b2e4a; }
QLabel[pinned="true"] { border: 2px dashed #c2185b; }
QLabel[kind="hint"] { border-color: transparent; background: transparent; color: #8a93a6; }
)";

// A mixture of experts' choice for one token of the sentence, a line per layer ("layer 0: expert 3
// (0.61), expert 1 (0.39)"); empty for other models and for attention that is not the sentence's.
QString routingLines(const TraceSnapshot& snapshot, int token) {
    if (!snapshot.trace || snapshot.kind != AttentionKind::Self) return {};
    QStringList lines;
    const std::vector<LayerTrace>& layers = snapshot.trace->layers();
    for (size_t l = 0; l < layers.size(); ++l) {
        const std::vector<TokenRouting>& routing = layers[l].routing;
        if (token >= static_cast<int>(routing.size())) continue;
        QStringList chosen;
        for (const ExpertChoice& choice : routing[token])
            chosen
                << QObject::tr("expert %1 (%2)").arg(choice.expert).arg(choice.weight, 0, 'f', 2);
        lines << QObject::tr("layer %1: %2").arg(l).arg(chosen.join(QStringLiteral(", ")));
    }
    if (lines.isEmpty()) return {};
    return QObject::tr("<br>experts (routing weight):<br>") + lines.join(QStringLiteral("<br>"));
}

void setKind(QLabel* chip, const char* kind, bool pinned) {
    if (chip->property("kind").toString() == QLatin1String(kind) &&
        chip->property("pinned").toBool() == pinned)
        return;
    chip->setProperty("kind", kind);
    chip->setProperty("pinned", pinned);
    chip->style()->unpolish(chip);
    chip->style()->polish(chip);
}

}  // namespace

TokenChips::TokenChips(LabDocument& document, QWidget* parent)
    : QWidget(parent), m_document(document) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);
    m_chipArea = new QWidget;
    m_chipArea->setStyleSheet(QString::fromLatin1(kChipStyle));
    m_flow = new FlowLayout(m_chipArea, 4);
    m_flow->setContentsMargins(0, 0, 0, 0);
    // A long sentence's chips scroll within four rows instead of pushing the views off screen.
    m_scroll = new QScrollArea(this);
    m_scroll->setWidget(m_chipArea);
    m_scroll->setWidgetResizable(true);
    m_scroll->setFrameShape(QFrame::NoFrame);
    m_scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    layout->addWidget(m_scroll);
    // Without tokens the row says what goes there, styled as a chip without its box so that it
    // is as high as a row of chips: emptying the sentence neither leaves a blank band nor moves
    // what is below.
    m_emptyHint = new QLabel(tr("The sentence's tokens appear here, numbered as on the heatmaps."),
                             m_chipArea);
    m_emptyHint->setProperty("kind", QStringLiteral("hint"));
    m_flow->addWidget(m_emptyHint);
    m_notice = new QLabel(this);
    m_notice->setStyleSheet(QStringLiteral("color: #b35900;"));
    m_notice->setWordWrap(true);
    m_notice->hide();
    layout->addWidget(m_notice);
    connect(&document, &LabDocument::snapshotChanged, this, &TokenChips::rebuild);
    connect(&document, &LabDocument::tokenPairChanged, this, &TokenChips::highlight);
    connect(&document, &LabDocument::pinnedTokenChanged, this, &TokenChips::highlight);
}

QStringList TokenChips::chipTexts() const {
    QStringList texts;
    for (const QLabel* chip : m_chips) texts << chip->text();
    return texts;
}

QString TokenChips::noticeText() const {
    return m_notice->isVisible() ? m_notice->text() : QString();
}

// Chips are reused while typing: only the tokens past the old count are new widgets. They show
// the sentence typed (an encoder-decoder's source, whichever attention is shown).
void TokenChips::rebuild() {
    const auto snapshot = m_document.snapshot();
    const int count = snapshot ? static_cast<int>(snapshot->sourceTokens.size()) : 0;
    while (m_chips.size() > count) delete m_chips.takeLast();
    while (m_chips.size() < count) {
        auto* chip = new QLabel(m_chipArea);
        chip->setTextFormat(Qt::PlainText);  // "<s>" is a token, not markup
        chip->setCursor(Qt::PointingHandCursor);
        chip->installEventFilter(this);
        m_flow->addWidget(chip);
        chip->show();
        m_chips.append(chip);
    }
    m_notice->setVisible(snapshot && snapshot->truncatedFrom);
    m_emptyHint->setVisible(count == 0);
    if (!snapshot) return;
    if (snapshot->truncatedFrom)
        m_notice->setText(tr("The sentence has %1 tokens; the model reads at most %2, so the last "
                             "%3 were dropped.")
                              .arg(*snapshot->truncatedFrom)
                              .arg(count)
                              .arg(*snapshot->truncatedFrom - count));
    for (int i = 0; i < count; ++i) {
        const ShownToken& token = snapshot->sourceTokens[i];
        QLabel* chip = m_chips[i];
        chip->setText(token.label);
        chip->setToolTip(tr("token %1 · id %2 · piece %3%4<br><i>click to pin it: its row and "
                            "column are marked in every view</i>")
                             .arg(i)
                             .arg(token.id)
                             .arg(token.piece.toHtmlEscaped(), routingLines(*snapshot, i)));
        chip->setProperty("special", token.special);
    }
    highlight();
    m_flow->invalidate();
    m_chipArea->updateGeometry();
    fitHeight();
}

void TokenChips::fitHeight() {
    constexpr int kMaxRows = 4;
    const int content = m_flow->heightForWidth(m_scroll->viewport()->width());
    const QLabel* first = m_chips.isEmpty() ? m_emptyHint : m_chips.front();
    const int row = first->sizeHint().height() + 4;
    m_scroll->setFixedHeight(std::min(content, kMaxRows * row));
}

void TokenChips::resizeEvent(QResizeEvent* event) {
    QWidget::resizeEvent(event);
    fitHeight();
}

// The pair's tokens that are source tokens: both in the source's own attention, the key in
// cross-attention, none in the decoder's.
void TokenChips::highlight() {
    auto pair = m_document.tokenPair();
    const AttentionKind kind = m_document.attentionKind();
    if (pair && kind == AttentionKind::Cross) pair->query = -1;
    if (kind == AttentionKind::DecoderSelf) pair.reset();
    const std::optional<int> pinned = m_document.pinnedToken();
    for (int i = 0; i < m_chips.size(); ++i) {
        QLabel* chip = m_chips[i];
        const bool pin = pinned == i;
        if (pair && i == pair->query)
            setKind(chip, "query", pin);
        else if (pair && i == pair->key)
            setKind(chip, "key", pin);
        else if (chip->property("special").toBool())
            setKind(chip, "special", pin);
        else
            setKind(chip, "plain", pin);
    }
}

QWidget* TokenChips::chip(int index) const { return m_chips.value(index); }

bool TokenChips::eventFilter(QObject* watched, QEvent* event) {
    if (event->type() == QEvent::MouseButtonRelease) {
        const int index = m_chips.indexOf(qobject_cast<QLabel*>(watched));
        if (index >= 0) {
            const bool pinned = m_document.pinnedToken() == index;
            m_document.setPinnedToken(pinned ? std::nullopt : std::optional<int>(index));
            return true;
        }
    }
    return QWidget::eventFilter(watched, event);
}

}  // namespace qkv::ui
