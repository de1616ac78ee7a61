#include "ui/views/lines_view.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QMouseEvent>
#include <QPainter>
#include <QScrollArea>
#include <QVBoxLayout>

#include "ui/document/lab_document.h"
#include "ui/plot/tying_colors.h"

namespace qkv::ui {
namespace {

// Lines per head at most: past this a 500-token sentence's 125,000 lines would be a grey wash.
constexpr std::size_t kMaxLinesPerHead = 4000;
// Lines fainter than this are invisible at any opacity a screen shows; they are not drawn.
constexpr float kMinWeight = 0.01f;
constexpr int kColumnGap = 260;  // between the two token columns
constexpr int kTextWidth = 150;  // each token column
constexpr int kMargin = 12;

}  // namespace

LinesView::LinesView(LabDocument& document, QWidget* parent) : DocumentView(document, parent) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 4, 0, 0);
    m_heads = new QComboBox(this);
    m_heads->addItem(tr("this head"));
    m_heads->addItem(tr("every head of the layer"));
    m_status = addControlRow(layout, tr("Heads"), m_heads).hint;
    m_status->setTextFormat(Qt::RichText);
    m_canvas = new LinesCanvas;
    m_scroll = new QScrollArea(this);
    m_scroll->setWidget(m_canvas);
    m_scroll->setWidgetResizable(true);
    m_scroll->setFrameShape(QFrame::NoFrame);
    layout->addWidget(m_scroll, 1);
    connect(m_heads, &QComboBox::currentIndexChanged, this, [this] { scheduleRefresh(); });
    connectRefresh();
    connect(&document, &LabDocument::headChanged, this, &LinesView::scheduleRefresh);
    connect(&document, &LabDocument::pinnedTokenChanged, this, &LinesView::scheduleRefresh);
}

bool LinesView::allHeads() const { return m_heads->currentIndex() == 1; }
void LinesView::setAllHeads(bool all) { m_heads->setCurrentIndex(all ? 1 : 0); }
QString LinesView::status() const { return m_status->text(); }

void LinesView::refresh() {
    const LabDocument& d = document();
    if (const QString why = headPlaceholder(); !why.isEmpty()) {
        m_canvas->setContent({}, {}, {});
        m_status->setText(why);
        return;
    }
    const TraceSnapshot& snapshot = *d.snapshot();
    std::vector<HeadLines> heads;
    std::size_t omitted = 0;
    int skipped = 0;
    const bool implicit = snapshot.trace->isImplicit(d.layer());
    for (int h = 0; h < snapshot.trace->headCount(); ++h) {
        if (!allHeads() && h != d.head()) continue;
        if (!snapshot.includes(d.layer(), h)) {
            ++skipped;
            continue;
        }
        HeadLines lines{h, tab10Color(allHeads() ? h : 0), {}};
        const RowMatrixXf& map = snapshot.trace->probabilities(d.layer(), h);
        // An implicit map's entries are signed and unbounded: drawn relative to its largest.
        const float largest = implicit ? map.cwiseAbs().maxCoeff() : 1.0f;
        lines.links = strongestLinks(largest > 0 ? RowMatrixXf(map / largest) : map,
                                     kMaxLinesPerHead, kMinWeight);
        omitted += lines.links.omitted;
        heads.push_back(std::move(lines));
    }
    QString status = allHeads() ? tr("Layer %1:").arg(d.layer())
                                : tr("Layer %1 · Head %2.").arg(d.layer()).arg(d.head());
    if (allHeads())
        for (const HeadLines& head : heads)
            status += QStringLiteral(" <span style=\"color:%1\">■</span> H%2")
                          .arg(head.color.name())
                          .arg(head.head);
    status += QStringLiteral(" ");
    status += implicit ? tr("Opacity = |A_ij| of the implicit map relative to the head's "
                            "largest, dashed where A_ij < 0; hover a token to see only its lines.")
                       : tr("Opacity = A_ij; hover a token to see only its lines.");
    if (omitted > 0)
        status += tr(" Only the %1 strongest lines of each head are drawn (%2 weaker ones left "
                     "out).")
                      .arg(kMaxLinesPerHead)
                      .arg(omitted);
    if (skipped > 0)
        status += tr(" %1 heads were not captured for this long sentence.").arg(skipped);
    m_status->setText(status);
    m_canvas->setContent(snapshot.labels(), snapshot.keyLabels(), std::move(heads));
    const PinnedCell pin = d.pinnedCell();
    m_canvas->setPinned(pin.row, pin.column);
}

LinesCanvas::LinesCanvas(QWidget* parent) : QWidget(parent) {
    setMouseTracking(true);
    setAutoFillBackground(true);
    setBackgroundRole(QPalette::Base);
}

void LinesCanvas::setContent(QStringList queries, QStringList keys, std::vector<HeadLines> heads) {
    m_queries = std::move(queries);
    m_keys = std::move(keys);
    m_heads = std::move(heads);
    m_hover.reset();
    updateGeometry();
    update();
}

QSize LinesCanvas::sizeHint() const {
    const int rows = std::max(m_queries.size(), m_keys.size());
    return {2 * kTextWidth + kColumnGap + 2 * kMargin, rows * kRowHeight + 2 * kMargin};
}

void LinesCanvas::setPinned(std::optional<int> query, std::optional<int> key) {
    m_pinnedQuery = query;
    m_pinnedKey = key;
    update();
}

void LinesCanvas::setHovered(std::optional<std::pair<int, int>> hover) {
    if (hover == m_hover) return;
    m_hover = hover;
    update();
}

bool LinesCanvas::shows(const AttentionLink& link) const {
    if (!m_hover) return true;
    return m_hover->first == 0 ? link.query == m_hover->second : link.key == m_hover->second;
}

int LinesCanvas::drawnLines() const {
    int count = 0;
    for (const HeadLines& head : m_heads)
        for (const AttentionLink& link : head.links.links) count += shows(link) ? 1 : 0;
    return count;
}

std::optional<std::pair<int, int>> LinesCanvas::tokenAt(const QPoint& point) const {
    const int row = (point.y() - kMargin) / kRowHeight;
    if (point.y() < kMargin || row < 0) return std::nullopt;
    const int left = (width() - 2 * kTextWidth - kColumnGap) / 2;
    if (point.x() >= left && point.x() < left + kTextWidth && row < m_queries.size())
        return std::pair{0, row};
    const int right = left + kTextWidth + kColumnGap;
    if (point.x() >= right && point.x() < right + kTextWidth && row < m_keys.size())
        return std::pair{1, row};
    return std::nullopt;
}

void LinesCanvas::paint(QPainter& painter, const QSize& size) const {
    painter.setRenderHint(QPainter::Antialiasing);
    const int left = (size.width() - 2 * kTextWidth - kColumnGap) / 2;
    const int lineStart = left + kTextWidth + 4, lineEnd = left + kTextWidth + kColumnGap - 4;
    const auto rowY = [](int row) { return kMargin + row * kRowHeight + kRowHeight / 2.0; };
    // Lines under the text; weak ones first, so the strong ones stay on top.
    for (const HeadLines& head : m_heads)
        for (auto it = head.links.links.rbegin(); it != head.links.links.rend(); ++it) {
            if (!shows(*it)) continue;
            QColor color = head.color;
            color.setAlphaF(std::clamp(std::abs(it->weight), 0.0f, 1.0f));
            painter.setPen(QPen(color, 2, it->weight < 0 ? Qt::DashLine : Qt::SolidLine));
            painter.drawLine(QPointF(lineStart, rowY(it->query)), QPointF(lineEnd, rowY(it->key)));
        }
    const auto drawColumn = [&](const QStringList& tokens, int x, Qt::Alignment align, int side) {
        const std::optional<int> pinned = side == 0 ? m_pinnedQuery : m_pinnedKey;
        if (pinned && *pinned < tokens.size())
            painter.fillRect(QRectF(x, kMargin + *pinned * kRowHeight, kTextWidth, kRowHeight),
                             QColor(0xc2, 0x18, 0x5b, 40));
        for (int i = 0; i < tokens.size(); ++i) {
            const bool hovered = m_hover && m_hover->first == side && m_hover->second == i;
            QFont font = painter.font();
            font.setBold(hovered);
            painter.setFont(font);
            painter.setPen(palette().color(QPalette::Text));
            painter.drawText(QRectF(x, kMargin + i * kRowHeight, kTextWidth, kRowHeight),
                             align | Qt::AlignVCenter, tokens[i]);
        }
    };
    drawColumn(m_queries, left, Qt::AlignRight, 0);
    drawColumn(m_keys, left + kTextWidth + kColumnGap, Qt::AlignLeft, 1);
}

void LinesCanvas::paintEvent(QPaintEvent*) {
    QPainter painter(this);
    paint(painter, size());
}

void LinesCanvas::mouseMoveEvent(QMouseEvent* event) { setHovered(tokenAt(event->pos())); }
void LinesCanvas::leaveEvent(QEvent*) { setHovered(std::nullopt); }

}  // namespace qkv::ui
