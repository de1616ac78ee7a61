#include "ui/document/lab_document.h"

#include <QThread>
#include <algorithm>

#include "core/backend/backend.h"
#include "core/model/applicable_configurations.h"
#include "ui/compute/compute_worker.h"
#include "ui/compute/thread_handoff.h"
#include "ui/support/worker_thread.h"

namespace qkv::ui {

LabDocument::LabDocument(QObject* parent) : QObject(parent) {
    connect(&m_typing, &TypingPacer::ready, this, [this] { submit(); });

    // The GUI thread keeps a core of its own while the worker computes.
    setCpuBackendThreads(QThread::idealThreadCount() - 1);
    m_worker = new ComputeWorker(m_computations, m_loads);
    m_worker->moveToThread(&m_thread);
    m_thread.setObjectName(QStringLiteral("qkv-compute"));
    connect(m_worker, &ComputeWorker::modelLoaded, this, &LabDocument::onModelLoaded);
    connect(m_worker, &ComputeWorker::modelFailed, this, &LabDocument::onModelFailed);
    connect(m_worker, &ComputeWorker::backendChanged, this, &LabDocument::onBackendChanged);
    connect(m_worker, &ComputeWorker::backendFailed, this, &LabDocument::onBackendFailed);
    connect(m_worker, &ComputeWorker::traceReady, this, &LabDocument::onTraceReady);
    connect(m_worker, &ComputeWorker::metricsReady, this, &LabDocument::onMetricsReady);
    connect(m_worker, &ComputeWorker::computeFailed, this, &LabDocument::onComputeFailed);
    connect(m_worker, &ComputeWorker::comparisonChanged, this, [this](QString name) {
        if (name == m_comparisonName) return;
        m_comparisonName = name;
        emit comparisonChanged();
        if (m_model && !m_loading) recompute();  // a model that opens computes by itself
    });
    connect(m_worker, &ComputeWorker::comparisonFailed, this, &LabDocument::onComparisonFailed);
    connect(m_worker, &ComputeWorker::headMetricsReady, this,
            [this](const HeadMetricsSnapshotPtr& head) {
                takeOver(head.get());
                if (!m_computations.isCurrent(head->sequence)) return;
                m_headMetrics = head;
                emit metricsChanged();
            });
    connect(m_worker, &ComputeWorker::progressed, this,
            [this](quint64 sequence, QString stage, int done, int total) {
                if (m_computations.isCurrent(sequence)) emit progressChanged(stage, done, total);
            });
    // A backend from the start, for the status bar. Queued before the thread starts, so starting
    // it orders the call's data before the worker reads it (ThreadSanitizer cannot see the
    // ordering Qt's event queue gives: Qt is not built with it).
    setBackendChoice(m_backendChoice);
    m_thread.start();
}

LabDocument::~LabDocument() {
    m_computations.close();  // skip whatever is still queued
    m_loads.close();
    finishWorkerThread(m_thread, m_worker);
}

QString LabDocument::modelFolder() const {
    return m_model ? QString::fromStdString(m_model->folder().string()) : QString();
}

void LabDocument::openModel(const QString& folder) {
    m_loading = true;
    m_loadingFolder = folder;
    m_computations.cancel();  // results for the old model are stale
    m_typing.stopped();       // the loaded model computes the text it finds
    const quint64 load = m_loads.start().sequence;
    setBusy(false);
    emit modelLoading(folder);
    QMetaObject::invokeMethod(
        m_worker, [worker = m_worker, folder, load] { worker->loadModel(folder, load); },
        Qt::QueuedConnection);
}

void LabDocument::setComparison(const QString& location) {
    QMetaObject::invokeMethod(
        m_worker, [worker = m_worker, location] { worker->loadComparison(location); },
        Qt::QueuedConnection);
}

// The worker holds the model it reports, so it is taken even when its opening was cancelled a
// moment too late; only a newer opening still on its way keeps the document loading.
void LabDocument::onModelLoaded(quint64 load, const std::shared_ptr<const qkv::Model>& model,
                                QString backendChoice, QString backendName) {
    takeOver(model.get());
    m_model = model;
    m_loading = !m_loads.isCurrent(load);
    m_backendChoice = backendChoice;
    m_backendName = backendName;
    m_typing.forgetDuration();
    m_layer = model->architecture().firstLayerWithHeads();  // LFM2's first layers have none
    m_head = 0;
    m_kind = AttentionKind::Self;
    m_tokenPair.reset();
    m_pinned.reset();
    m_annotations.clear();  // they name this model's heads only
    clearResults();
    // A configuration the new model's attention does not define (tied-kv under latent
    // attention) gives way to the learned one, with the options kept.
    if (!configurationApplies(m_model->architecture(), m_config)) {
        WConfiguration learned;
        learned.scaleOutside = m_config.scaleOutside;
        learned.maskSelf = m_config.maskSelf;
        m_config = learned;
        emit configChanged();
    }
    emit annotationsChanged();
    emit attentionKindChanged();
    emit modelChanged();
    emit headChanged(m_layer, m_head);
    emit backendChanged(m_backendName);
    submit();
}

void LabDocument::onModelFailed(quint64 load, const QString& folder, const QString& message) {
    takeOver(message.constData());  // made on the compute thread (thread_handoff.h)
    if (!m_loads.isCurrent(load) || !m_loading)
        return;  // superseded or cancelled: nobody waits for it
    m_loading = false;
    emit modelFailed(folder, message);
}

void LabDocument::cancelLoading() {
    m_loads.cancel();
    m_loading = false;
    emit loadCancelled(m_loadingFolder);
    if (m_model) recompute();  // what was typed while it loaded, for the model that stays
}

void LabDocument::setText(const QString& text) {
    if (text == m_text) return;
    m_text = text;
    emit textChanged(m_text);
    if (m_targetWritten) {  // the model's translation of the old sentence: write a new one
        m_targetText.clear();
        m_targetWritten = false;
        emit targetTextChanged(m_targetText);
    }
    if (m_text.trimmed().isEmpty()) {
        submit();  // clears at once: no stale heatmap beside an empty editor
        return;
    }
    m_typing.typed();
}

void LabDocument::setTargetText(const QString& text) {
    if (text == m_targetText) return;
    m_targetText = text;
    m_targetWritten = false;  // the user's own now
    emit targetTextChanged(m_targetText);
    if (m_model && m_model->architecture().isEncoderDecoder()) m_typing.typed();
}

void LabDocument::setAttentionKind(AttentionKind kind) {
    if (!m_model || !m_model->architecture().isEncoderDecoder()) kind = AttentionKind::Self;
    if (kind == m_kind) return;
    m_kind = kind;
    m_tokenPair.reset();
    emit attentionKindChanged();
    const Architecture c = shownArchitecture();
    m_layer = std::min(m_layer, c.layers - 1);
    m_head = std::min(m_head, c.heads - 1);
    emit headChanged(m_layer, m_head);
    recompute();
}

KeyMask LabDocument::shownMask(int layer) const {
    if (m_kind == AttentionKind::Cross) return {false, 0};
    return shownArchitecture().keyMask(layer);
}

QString LabDocument::shownLayerKind(int layer) const {
    if (m_kind != AttentionKind::Self) return {};
    return QString::fromStdString(shownArchitecture().describeLayer(layer));
}

Architecture LabDocument::shownArchitecture() const {
    if (!m_model) return {};
    return architectureOf(*m_model, m_kind);
}

void LabDocument::setConfig(const WConfiguration& config) {
    if (config == m_config) return;
    m_config = config;
    emit configChanged();
    recompute();
}

void LabDocument::setGqaPairing(GqaPairing pairing) {
    if (pairing == m_pairing) return;
    m_pairing = pairing;
    emit configChanged();
    recompute();
}

void LabDocument::setPooledSentences(const QStringList& sentences) {
    if (sentences == m_pooled) return;
    m_pooled = sentences;
    recompute();
}

namespace {

// LabDocument::selectableHeads of a description, read once by the loops over layers.
int selectableIn(const Architecture& c, int layer) {
    if (layer < 0 || layer >= c.layers) return 0;
    return c.mixerOf(layer) == Mixer::ShortConv ? 1 : c.headsOf(layer);
}

}  // namespace

int LabDocument::selectableHeads(int layer) const {
    return selectableIn(shownArchitecture(), layer);
}

bool LabDocument::showsBand() const {
    return m_model && shownArchitecture().mixerOf(m_layer) == Mixer::ShortConv;
}

void LabDocument::setHead(int layer, int head) {
    if (!m_model) return;
    const Architecture c = shownArchitecture();
    layer = std::clamp(layer, 0, c.layers - 1);
    // A block without a mixer (Nemotron-H's MLPs) is passed over in the direction of travel.
    const int away = layer >= m_layer ? 1 : -1;
    for (int direction : {away, -away}) {
        int l = layer;
        while (l >= 0 && l < c.layers && selectableIn(c, l) == 0) l += direction;
        if (l >= 0 && l < c.layers) {
            layer = l;
            break;
        }
    }
    if (selectableIn(c, layer) == 0) return;
    head = std::clamp(head, 0, selectableIn(c, layer) - 1);
    if (layer == m_layer && head == m_head) return;
    m_layer = layer;
    m_head = head;
    emit headChanged(m_layer, m_head);
    if (m_snapshot && (!m_snapshot->includes(m_layer, m_head) || !m_pooled.isEmpty())) recompute();
}

void LabDocument::stepHead(int delta) {
    if (!m_model) return;
    // Every head of every layer in order; a hybrid's layers have heads of their own count.
    const Architecture c = shownArchitecture();
    // Past the first or last head nothing moves; blocks without a mixer are passed over.
    int layer = m_layer, head = m_head + delta;
    while (head < 0) {
        if (layer == 0) return;
        head += selectableIn(c, --layer);
    }
    while (head >= selectableIn(c, layer)) {
        if (layer == c.layers - 1) return;
        head -= selectableIn(c, layer++);
    }
    setHead(layer, head);
}

void LabDocument::stepLayer(int delta) { setHead(m_layer + delta, m_head); }

void LabDocument::setMode(HeatmapMode mode) {
    if (mode == m_mode) return;
    m_mode = mode;
    emit modeChanged();
}

void LabDocument::setTokenPair(std::optional<TokenPair> pair) {
    if (pair && (!m_snapshot || pair->query < 0 || pair->key < 0 ||
                 pair->query >= static_cast<int>(m_snapshot->tokens.size()) ||
                 pair->key >= static_cast<int>(m_snapshot->columnTokens().size())))
        pair.reset();
    if (pair == m_tokenPair) return;
    m_tokenPair = pair;
    emit tokenPairChanged();
}

void LabDocument::setPinnedToken(std::optional<int> token) {
    if (token &&
        (!m_snapshot || *token < 0 || *token >= static_cast<int>(m_snapshot->sourceTokens.size())))
        token.reset();
    if (token == m_pinned) return;
    m_pinned = token;
    emit pinnedTokenChanged();
}

PinnedCell LabDocument::pinnedCell() const {
    switch (m_kind) {
        case AttentionKind::Self:
            return {m_pinned, m_pinned};
        case AttentionKind::Cross:
            return {std::nullopt, m_pinned};
        case AttentionKind::DecoderSelf:
            break;
    }
    return {};
}

void LabDocument::restorePinnedToken(std::optional<int> token) {
    if (token && *token < 0) token.reset();
    if (token == m_pinned) return;
    m_pinned = token;
    emit pinnedTokenChanged();
}

QString LabDocument::annotation(int layer, int head) const {
    const auto found = m_annotations.find({m_kind, layer, head});
    return found == m_annotations.end() ? QString() : found->second;
}

void LabDocument::setAnnotation(int layer, int head, const QString& name) {
    HeadAnnotations annotations = m_annotations;
    if (const QString trimmed = name.simplified(); trimmed.isEmpty())
        annotations.erase({m_kind, layer, head});
    else
        annotations[{m_kind, layer, head}] = trimmed;
    setAnnotations(annotations);
}

void LabDocument::setAnnotations(const HeadAnnotations& annotations) {
    if (annotations == m_annotations) return;
    m_annotations = annotations;
    emit annotationsChanged();
}

void LabDocument::setColorScheme(const ColorScheme& scheme) {
    if (scheme.sequential == m_colors.sequential && scheme.diverging == m_colors.diverging) return;
    m_colors = scheme;
    emit colorSchemeChanged();
}

void LabDocument::setBackendChoice(const QString& choice) {
    QMetaObject::invokeMethod(
        m_worker, [worker = m_worker, choice] { worker->selectBackend(choice); },
        Qt::QueuedConnection);
}

void LabDocument::onBackendChanged(QString choice, QString name) {
    m_backendChoice = choice;
    m_backendName = name;
    emit backendChanged(m_backendName);
    recompute();
}

// The worker kept its previous backend (or fell back to the CPU while loading, which
// modelLoaded already reported): only the message is new.
void LabDocument::onBackendFailed(const QString& choice, const QString& message) {
    takeOver(message.constData());  // made on the compute thread (thread_handoff.h)
    emit backendFailed(choice, message);
}

void LabDocument::recompute() { submit(); }

void LabDocument::computeAllHeads() { submit(true); }

void LabDocument::cancelComputation() {
    m_typing.stopped();
    m_computations.cancel();
    setBusy(false);
    if (m_loading) cancelLoading();
}

void LabDocument::submit(bool captureAll) {
    const LatestRequest::Ticket ticket = m_computations.start();
    m_typing.stopped();  // this request takes the latest text, and cancelled the running one
    if (!m_model || m_loading) return;
    // Nothing to read: the views say what to type, and the weights' numbers come all the same.
    const bool weightsOnly = !hasReadableSentence();
    if (weightsOnly) {
        clearResults();
        setBusy(false);
        emit snapshotChanged();
        emit metricsChanged();
    }
    ComputeRequest request;
    request.sequence = ticket.sequence;
    request.text = m_text;
    request.targetText = m_targetText;
    request.kind = m_kind;
    request.config = m_config;
    request.pairing = m_pairing;
    request.pooledSentences = m_pooled;
    request.layer = m_layer;
    request.head = m_head;
    request.captureAll = captureAll;
    request.cancel = ticket.cancel;
    request.weightsOnly = weightsOnly;
    if (!weightsOnly) {
        setBusy(true);
        m_typing.started();
    }
    QMetaObject::invokeMethod(
        m_worker, [worker = m_worker, request] { worker->compute(request); }, Qt::QueuedConnection);
}

bool LabDocument::hasReadableSentence() const {
    const QString text = m_text.trimmed();
    return !text.isEmpty() && (m_model->tokenizer() || text.startsWith(u'#'));
}

void LabDocument::clearResults() {
    m_snapshot.reset();
    m_metrics.reset();
    m_headMetrics.reset();
    m_error.clear();
    m_tokenPair.reset();
}

void LabDocument::setBusy(bool busy) {
    if (busy == m_busy) return;
    m_busy = busy;
    emit busyChanged(m_busy);
}

void LabDocument::onTraceReady(const TraceSnapshotPtr& snapshot) {
    takeOver(snapshot.get());
    if (!m_computations.isCurrent(snapshot->sequence)) return;  // a newer request is on its way
    m_snapshot = snapshot;
    m_error.clear();
    if (m_tokenPair && (m_tokenPair->query >= static_cast<int>(m_snapshot->tokens.size()) ||
                        m_tokenPair->key >= static_cast<int>(m_snapshot->columnTokens().size())))
        m_tokenPair.reset();
    if (m_pinned && *m_pinned >= static_cast<int>(m_snapshot->sourceTokens.size())) {
        m_pinned.reset();
        emit pinnedTokenChanged();
    }
    // What the model wrote fills the empty target line, where it can be edited; the traces
    // already used it, so nothing is recomputed.
    if (m_snapshot->targetWritten && m_targetText.trimmed().isEmpty()) {
        m_targetText = m_snapshot->targetText;
        m_targetWritten = true;
        emit targetTextChanged(m_targetText);
    }
    setBusy(false);
    m_typing.finished();  // text typed meanwhile goes to the worker before this result is drawn
    emit snapshotChanged();
}

void LabDocument::onMetricsReady(const MetricsSnapshotPtr& metrics) {
    takeOver(metrics.get());
    if (!m_computations.isCurrent(metrics->sequence)) return;
    m_metrics = metrics;
    m_headMetrics.reset();
    emit metricsChanged();
}

void LabDocument::onComparisonFailed(const QString& location, const QString& message) {
    takeOver(message.constData());
    emit comparisonFailed(location, message);
}

void LabDocument::onComputeFailed(quint64 sequence, const QString& message) {
    takeOver(message.constData());  // made on the compute thread (thread_handoff.h)
    if (!m_computations.isCurrent(sequence)) return;
    m_snapshot.reset();
    m_metrics.reset();
    m_error = message;
    setBusy(false);
    m_typing.finished();
    emit snapshotChanged();
    emit metricsChanged();
    emit computeFailed(message);
}

}  // namespace qkv::ui
