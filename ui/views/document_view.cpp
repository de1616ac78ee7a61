#include "ui/views/document_view.h"

#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QVBoxLayout>

#include "ui/document/lab_document.h"
#include "ui/views/flow_layout.h"

namespace qkv::ui {

DocumentView::DocumentView(LabDocument& document, QWidget* parent)
    : QWidget(parent), m_document(document) {}

void DocumentView::connectRefresh() {
    LabDocument* d = &m_document;
    connect(d, &LabDocument::modelLoading, this, &DocumentView::scheduleRefresh);
    connect(d, &LabDocument::modelChanged, this, &DocumentView::scheduleRefresh);
    connect(d, &LabDocument::modelFailed, this, &DocumentView::scheduleRefresh);
    connect(d, &LabDocument::loadCancelled, this, &DocumentView::scheduleRefresh);
    connect(d, &LabDocument::snapshotChanged, this, &DocumentView::scheduleRefresh);
    connect(d, &LabDocument::colorSchemeChanged, this, &DocumentView::scheduleRefresh);
}

void DocumentView::scheduleRefresh() {
    if (isVisible()) {
        m_dirty = false;
        refresh();
    } else {
        m_dirty = true;
    }
}

void DocumentView::showEvent(QShowEvent* event) {
    QWidget::showEvent(event);
    if (m_dirty) {
        m_dirty = false;
        refresh();
    }
}

DocumentView::ControlRow DocumentView::addControlRow(QVBoxLayout* layout, const QString& title,
                                                     QWidget* control) {
    auto* line = new QWidget(this);
    auto* row = new FlowLayout(line, 8);
    row->setContentsMargins(8, 0, 8, 0);
    row->addWidget(new QLabel(title, line));
    row->addWidget(control);
    auto* hint = new QLabel(line);
    hint->setStyleSheet(QStringLiteral("color: palette(mid);"));
    hint->setWordWrap(true);  // a long hint wraps instead of widening the window
    row->addWidget(hint);
    layout->addWidget(line);
    return {row, hint};
}

std::optional<std::pair<int, int>> DocumentView::selectedCell(const LabDocument& document) {
    const auto pair = document.tokenPair();
    if (!pair) return std::nullopt;
    return std::make_pair(pair->query, pair->key);
}

QString DocumentView::placeholder() const {
    const LabDocument& d = m_document;
    if (d.isLoading()) return tr("Opening %1…").arg(QFileInfo(d.loadingFolder()).fileName());
    if (!d.model())
        return tr("Open a model folder to begin: File ▸ Open (Ctrl+O), or drop a folder here.");
    const bool typedIds = d.text().trimmed().startsWith(u'#');
    if (!d.model()->tokenizer() && !typedIds)
        return tr("This model has no usable tokenizer, so typed text cannot be analysed:\n%1\n\n"
                  "Type token ids after a '#' instead, for example #464 3807 373.")
            .arg(QString::fromStdString(d.model()->tokenizerError()));
    if (d.text().trimmed().isEmpty())
        return tr("Type a sentence above to see how every head attends.");
    if (!d.computeError().isEmpty())
        return tr("Could not analyse this sentence:\n%1").arg(d.computeError());
    if (!d.snapshot()) return tr("Computing…");
    return {};
}

QString DocumentView::headPlaceholder() const {
    if (QString why = placeholder(); !why.isEmpty()) return why;
    if (!m_document.showsBand()) return {};
    return tr("Layer %1 is a short convolution: it has no heads, so no queries, keys or attention "
              "to show here. Each channel mixes its last few tokens with fixed taps: the Head "
              "view draws that band.")
        .arg(m_document.layer());
}

}  // namespace qkv::ui
