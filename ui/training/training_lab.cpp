#include "ui/training/training_lab.h"

#include <QDir>
#include <QFileInfo>
#include <algorithm>

#include "ui/compute/thread_handoff.h"
#include "ui/support/worker_thread.h"
#include "ui/training/variant_worker.h"

namespace qkv::ui {

TrainingLab::TrainingLab(QObject* parent) : QObject(parent) {
    m_worker = new VariantWorker(m_requests);
    m_worker->moveToThread(&m_thread);
    m_thread.setObjectName(QStringLiteral("qkv-variants"));
    connect(m_worker, &VariantWorker::ready, this, &TrainingLab::onReady);
    m_thread.start();

    // A checkpoint writes several files in a row: read them once they are all there.
    m_reloadDelay.setSingleShot(true);
    m_reloadDelay.setInterval(kReloadDelayMs);
    connect(&m_reloadDelay, &QTimer::timeout, this, &TrainingLab::reload);
    connect(&m_watcher, &QFileSystemWatcher::directoryChanged, &m_reloadDelay,
            qOverload<>(&QTimer::start));
}

TrainingLab::~TrainingLab() {
    m_requests.close();  // skip whatever is still queued
    finishWorkerThread(m_thread, m_worker);
}

bool TrainingLab::hasTrainingLog() const {
    return std::any_of(m_variants.begin(), m_variants.end(),
                       [](const LoggedVariant& v) { return v.run.has_value(); });
}

bool TrainingLab::isEmpty() const { return !hasTrainingLog() && m_variants.size() < 2; }

void TrainingLab::setModelFolder(const QString& folder) {
    if (folder == m_folder) return;
    m_folder = folder;
    cancel();  // results of the old family are no use
    m_attention.reset();
    reload();
}

void TrainingLab::reload() {
    m_family = m_folder.isEmpty() ? VariantFamily{} : findVariantFamily(m_folder);
    m_variants.clear();
    for (const VariantFolder& variant : m_family.variants) {
        LoggedVariant entry{variant, std::nullopt, {}};
        try {
            entry.run = readTrainingRun(variant.folder);
        } catch (const std::exception& e) {
            entry.error = QString::fromUtf8(e.what());
        }
        m_variants.push_back(std::move(entry));
    }
    watch();
    emit variantsChanged();
    if (!m_text.isEmpty()) submit();  // checkpoints are rewritten with the logs
}

// The model's own folder and its parent (new variants appear there) and every variant's folder
// (logs and checkpoints are renamed into them).
void TrainingLab::watch() {
    if (const QStringList watched = m_watcher.directories(); !watched.isEmpty())
        m_watcher.removePaths(watched);
    if (m_folder.isEmpty()) return;
    QStringList folders{m_folder, QFileInfo(QDir(m_folder).absolutePath()).absolutePath()};
    for (const VariantFolder& variant : m_family.variants) folders << variant.folder;
    folders.removeDuplicates();
    m_watcher.addPaths(folders);
}

void TrainingLab::requestAttention(const QString& text, int layer, int head) {
    if (text == m_text && layer == m_layer && head == m_head) return;
    m_text = text;
    m_layer = layer;
    m_head = head;
    submit();
}

void TrainingLab::cancel() {
    m_requests.cancel();
    m_text.clear();  // the next request runs even if it asks for the same
    m_layer = m_head = -1;
    setBusy(false);
}

void TrainingLab::submit() {
    const LatestRequest::Ticket ticket = m_requests.start();
    if (m_text.trimmed().isEmpty() || m_family.empty()) {
        m_attention.reset();
        setBusy(false);
        emit attentionChanged();
        return;
    }
    VariantRequest request;
    request.sequence = ticket.sequence;
    request.text = m_text;
    request.layer = m_layer;
    request.head = m_head;
    request.variants = m_family.variants;
    request.cancel = ticket.cancel;
    setBusy(true);
    QMetaObject::invokeMethod(
        m_worker, [worker = m_worker, request] { worker->compute(request); }, Qt::QueuedConnection);
}

void TrainingLab::setBusy(bool busy) {
    if (busy == m_busy) return;
    m_busy = busy;
    emit busyChanged(m_busy);
}

void TrainingLab::onReady(const VariantSnapshotPtr& snapshot) {
    takeOver(snapshot.get());  // made on the worker's thread (thread_handoff.h)
    if (!m_requests.isCurrent(snapshot->sequence)) return;
    m_attention = snapshot;
    setBusy(false);
    emit attentionChanged();
}

}  // namespace qkv::ui
