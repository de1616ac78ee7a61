#include "ui/compute/compute_worker.h"

#include <QElapsedTimer>

#include "core/analysis/model_comparison.h"
#include "core/model/greedy_decode.h"
#include "gpu/backend_factory.h"
#include "ui/compute/capture_policy.h"
#include "ui/compute/thread_handoff.h"
#include "ui/compute/token_list.h"

namespace qkv::ui {
namespace {

// Weight metrics are cached per configuration and attention kind.
std::string metricsKey(const WConfiguration& config, AttentionKind kind, GqaPairing pairing) {
    return config.name() + "#" + std::to_string(static_cast<int>(kind)) + "#" +
           std::to_string(static_cast<int>(pairing));
}

// The trace of `kind`, sharing the result (which the prefix reuse also keeps).
std::shared_ptr<const AttentionTrace> traceOf(std::shared_ptr<const ForwardResult> result,
                                              AttentionKind kind) {
    switch (kind) {
        case AttentionKind::DecoderSelf:
            return {result, &result->decoderTrace};
        case AttentionKind::Cross:
            return {result, &result->crossTrace};
        case AttentionKind::Self:
            break;
    }
    return {result, &result->trace};
}

// The longest target the model writes for a sentence when none is given.
constexpr int kMaxWrittenTokens = 48;

double elapsedMs(const QElapsedTimer& timer) { return timer.nsecsElapsed() / 1e6; }

}  // namespace

ComputeWorker::ComputeWorker(const LatestRequest& computations, const LatestRequest& loads)
    : m_computations(computations), m_loads(loads) {
    qRegisterMetaType<std::shared_ptr<const qkv::Model>>();
    qRegisterMetaType<TraceSnapshotPtr>();
    qRegisterMetaType<MetricsSnapshotPtr>();
    qRegisterMetaType<HeadMetricsSnapshotPtr>();
}

// The forward pass refers to the model and backend: it goes first, after what refers to it.
ComputeWorker::~ComputeWorker() { setForward(nullptr); }

void ComputeWorker::setForward(std::unique_ptr<ForwardPass> forward) {
    m_reusing.reset();
    m_forward = std::move(forward);
    if (m_forward) m_reusing = std::make_unique<ReusingForward>(*m_forward);
}

void ComputeWorker::loadModel(const QString& folder, quint64 load) {
    if (m_loads.isStale(load)) return;
    try {
        std::shared_ptr<const Model> model = Model::open(folder.toStdString());
        if (m_loads.isStale(load)) return;
        std::unique_ptr<Backend> backend;
        const QString requested = m_backendChoice;
        QString backendError;
        try {
            backend = createBackend(requested.toStdString());
        } catch (const Error& e) {
            backendError = QString::fromStdString(e.what());
            backend = createBackend("cpu");
            m_backendChoice = QStringLiteral("cpu");
        }
        auto forward = std::make_unique<ForwardPass>(*model, *backend);
        setForward(nullptr);
        m_model = std::move(model);
        m_backend = std::move(backend);
        setForward(std::move(forward));
        m_weightMetrics.clear();
        dropComparison();
        handOver(m_model.get());
        emit modelLoaded(load, m_model, m_backendChoice, QString::fromStdString(m_backend->name()));
        if (!backendError.isEmpty()) emit backendFailed(requested, handedOver(backendError));
    } catch (const Error& e) {
        emit modelFailed(load, folder, handedOver(QString::fromStdString(e.what())));
    } catch (const std::bad_alloc&) {
        emit modelFailed(load, folder,
                         handedOver(QStringLiteral("out of memory while opening the model")));
    } catch (const std::exception& e) {
        emit modelFailed(load, folder, handedOver(QStringLiteral("internal error: ") + e.what()));
    }
}

void ComputeWorker::dropComparison() {
    if (!m_comparison) return;
    m_comparison.reset();
    emit comparisonChanged(QString());
}

void ComputeWorker::loadComparison(const QString& location) {
    if (location.isEmpty()) {
        m_comparison.reset();
        emit comparisonChanged(QString());
        return;
    }
    try {
        if (!m_model) throw Error("open a model first, then the checkpoint to compare it with");
        auto comparison = std::make_unique<Comparison>();
        comparison->model = Model::open(location.toStdString());
        requireComparable(*m_model, *comparison->model);
        // The same kind of backend as the open model's, so the two differ by their weights only.
        try {
            comparison->backend = createBackend(m_backendChoice.toStdString());
        } catch (const Error&) {
            comparison->backend = createBackend("cpu");
        }
        comparison->forward =
            std::make_unique<ForwardPass>(*comparison->model, *comparison->backend);
        m_comparison = std::move(comparison);
        emit comparisonChanged(QString::fromStdString(m_comparison->model->name()));
    } catch (const Error& e) {
        emit comparisonFailed(location, handedOver(QString::fromStdString(e.what())));
    } catch (const std::bad_alloc&) {
        emit comparisonFailed(location,
                              handedOver(QStringLiteral("out of memory while opening the model")));
    } catch (const std::exception& e) {
        emit comparisonFailed(location, handedOver(QStringLiteral("internal error: ") + e.what()));
    }
}

void ComputeWorker::selectBackend(const QString& choice) {
    try {
        std::unique_ptr<Backend> backend = createBackend(choice.toStdString());
        std::unique_ptr<ForwardPass> forward;
        if (m_model) forward = std::make_unique<ForwardPass>(*m_model, *backend);
        setForward(std::move(forward));
        m_backend = std::move(backend);
        m_backendChoice = choice;
        emit backendChanged(choice, QString::fromStdString(m_backend->name()));
    } catch (const Error& e) {
        emit backendFailed(choice, handedOver(QString::fromStdString(e.what())));
    }
}

bool ComputeWorker::isStale(const ComputeRequest& request) const {
    return m_computations.isStale(request.sequence, request.cancel.get());
}

void ComputeWorker::compute(const ComputeRequest& request) {
    if (isStale(request)) return;
    if (!m_forward) {
        emit computeFailed(request.sequence, handedOver(QStringLiteral("no model is open")));
        return;
    }
    const auto weightsOnly = [&] {
        emitMetrics(runMetrics(request, attentionKindOf(request), nullptr));
    };
    if (request.weightsOnly) {
        reportingFailure(request.sequence, weightsOnly);
        return;
    }
    TraceSnapshotPtr snapshot;
    if (!reportingFailure(request.sequence, [&] { snapshot = runForward(request); })) {
        // The weights' numbers need no sentence: they still come when this one cannot be read.
        if (!isStale(request)) reportingFailure(request.sequence, weightsOnly);
        return;
    }
    handOver(snapshot.get());
    emit traceReady(snapshot);
    if (isStale(request)) return;
    reportingFailure(request.sequence, [&] {
        const Architecture c = architectureOf(*m_model, snapshot->kind);
        if (!m_weightMetrics.count(metricsKey(request.config, snapshot->kind, request.pairing)) &&
            request.layer < c.layers && request.head < c.headsOf(request.layer)) {
            auto head = std::make_shared<HeadMetricsSnapshot>();
            head->sequence = request.sequence;
            head->config = request.config;
            head->kind = snapshot->kind;
            head->pairing = request.pairing;
            head->layer = request.layer;
            head->head = request.head;
            // The copying score waits for the whole model's metrics (its W_U W_E product is
            // the slow part), which follow at once.
            head->metrics = analyzeHead(
                *m_model, request.config, request.layer, request.head, snapshot->trace.get(),
                {.kind = snapshot->kind, .pairing = request.pairing, .copyingScores = false});
            handOver(head.get());
            emit headMetricsReady(head);
            if (isStale(request)) return;
        }
        emitMetrics(runMetrics(request, snapshot->kind, snapshot.get()));
    });
}

bool ComputeWorker::reportingFailure(quint64 sequence, const std::function<void()>& work) {
    try {
        work();
        return true;
    } catch (const Cancelled&) {
        // Superseded by a newer request: nothing to report.
    } catch (const Error& e) {
        emit computeFailed(sequence, handedOver(QString::fromStdString(e.what())));
    } catch (const std::bad_alloc&) {
        emit computeFailed(
            sequence,
            handedOver(QStringLiteral("out of memory: the sentence is too long for this model")));
    } catch (const std::exception& e) {
        emit computeFailed(sequence, handedOver(QStringLiteral("internal error: ") + e.what()));
    }
    return false;
}

void ComputeWorker::emitMetrics(const MetricsSnapshotPtr& metrics) {
    handOver(metrics.get());
    emit metricsReady(metrics);
}

AttentionKind ComputeWorker::attentionKindOf(const ComputeRequest& request) const {
    return m_model->architecture().isEncoderDecoder() ? request.kind : AttentionKind::Self;
}

// The decoder's input: its start token, then the target typed (its target side, without the
// closing end token; "#ids" are taken as the whole input), or what the model writes greedily.
void ComputeWorker::readTarget(const ComputeRequest& request, const std::vector<int>& sourceIds,
                               TraceSnapshot& snapshot) {
    const Architecture& c = m_model->architecture();
    const QString text = request.targetText.trimmed();
    std::optional<std::vector<int>> ids = typedTokenIds(text);
    if (!ids && !text.isEmpty()) ids = m_model->targetIds(text.toStdString());
    snapshot.targetText = text;
    if (ids) {
        validateIds(c, *ids);
    } else {
        ids = {c.decoderStartToken};
        const std::vector<int> written =
            greedyDecode(*m_forward, sourceIds, kMaxWrittenTokens, request.cancel.get());
        ids->insert(ids->end(), written.begin(), written.end());
        snapshot.targetWritten = true;
        snapshot.targetText = writtenTarget(*ids);
    }
    for (int id : *ids)
        snapshot.targetTokens.push_back(
            shownToken(*m_model, id, m_model->pieceOrNumber(id), id == c.decoderStartToken));
}

// What the model wrote, as the target line shows it: its text, or without a tokenizer its ids
// typed back ("#start id id …").
QString ComputeWorker::writtenTarget(const std::vector<int>& ids) const {
    const Tokenizer* tokenizer = m_model->tokenizer();
    QStringList typed;
    QString shown;
    for (size_t i = 0; i < ids.size(); ++i) {
        typed << QString::number(ids[i]);
        if (tokenizer && i > 0) shown += QString::fromStdString(tokenizer->displayText(ids[i]));
    }
    return tokenizer ? shown.trimmed() : QStringLiteral("#") + typed.join(u' ');
}

TraceSnapshotPtr ComputeWorker::runForward(const ComputeRequest& request) {
    QElapsedTimer timer;
    timer.start();
    TokenizedText tokenized = tokenizeForModel(*m_model, request.text);
    if (tokenized.tokens.empty()) throw Error("the sentence gives no tokens");

    auto snapshot = std::make_shared<TraceSnapshot>();
    snapshot->sequence = request.sequence;
    snapshot->text = request.text;
    snapshot->sourceTokens = std::move(tokenized.tokens);
    snapshot->truncatedFrom = tokenized.truncatedFrom;
    snapshot->config = request.config;
    snapshot->backend = QString::fromStdString(m_backend->name());

    ForwardRequest forward;
    for (const ShownToken& t : snapshot->sourceTokens) forward.ids.push_back(t.id);
    snapshot->kind = attentionKindOf(request);
    if (m_model->architecture().isEncoderDecoder()) readTarget(request, forward.ids, *snapshot);
    for (const ShownToken& t : snapshot->targetTokens) forward.targetIds.push_back(t.id);
    snapshot->tokens =
        snapshot->kind == AttentionKind::Self ? snapshot->sourceTokens : snapshot->targetTokens;
    if (snapshot->kind == AttentionKind::Cross) snapshot->keyTokens = snapshot->sourceTokens;
    forward.config = request.config;
    forward.logits = LogitsMode::None;
    forward.cancel = request.cancel.get();
    forward.progress = [this, sequence = request.sequence](int done, int total) {
        emit progressed(sequence, QStringLiteral("forward"), done, total);
    };
    const bool compare = !(request.config == WConfiguration{});
    forward.capture = capturePolicy(m_model->architecture(), static_cast<int>(forward.ids.size()),
                                    (compare ? 2 : 1) + (m_comparison ? 1 : 0), request.layer,
                                    request.head, request.captureAll);
    snapshot->capture = forward.capture;
    auto trace = traceOf(m_reusing->run(forward), snapshot->kind);
    snapshot->trace = trace;
    if (compare) {
        forward.config = WConfiguration{};
        snapshot->learned = traceOf(m_reusing->run(forward), snapshot->kind);
    } else {
        snapshot->learned = trace;
    }
    if (m_comparison && snapshot->kind == AttentionKind::Self) {
        forward.config = request.config;
        forward.progress = {};
        ForwardResult theirs = m_comparison->forward->run(forward);
        snapshot->compared = std::make_shared<const AttentionTrace>(std::move(theirs.trace));
        snapshot->comparedName = QString::fromStdString(m_comparison->model->name());
        snapshot->modelName = QString::fromStdString(m_model->name());
    }
    // A short convolution's band has no query and key vectors to pool.
    if (!request.pooledSentences.isEmpty() && snapshot->kind == AttentionKind::Self &&
        snapshot->includes(request.layer, request.head) &&
        request.head < architectureOf(*m_model, snapshot->kind).headsOf(request.layer))
        poolHead(request, *snapshot);
    snapshot->milliseconds = elapsedMs(timer);
    return snapshot;
}

// The shown head over each pooled sentence: one head captured, its queries and keys kept. The
// pooled points only add to the view: a model without a tokenizer pools nothing, and never
// fails the sentence's own computation.
void ComputeWorker::poolHead(const ComputeRequest& request, TraceSnapshot& snapshot) {
    if (!m_model->tokenizer()) return;
    ForwardRequest forward;
    forward.config = request.config;
    forward.logits = LogitsMode::None;
    forward.cancel = request.cancel.get();
    forward.capture.layer = request.layer;
    forward.capture.head = request.head;
    forward.capture.scores = false;
    for (const QString& sentence : request.pooledSentences) {
        const TokenizedText tokenized = tokenizeForModel(*m_model, sentence);
        if (tokenized.tokens.empty()) continue;  // nothing to read
        forward.ids.clear();
        for (const ShownToken& t : tokenized.tokens) forward.ids.push_back(t.id);
        const ForwardResult result = m_forward->run(forward);
        snapshot.pooled.push_back(headSample(result.trace, request.layer, request.head));
    }
    snapshot.pooledLayer = request.layer;
    snapshot.pooledHead = request.head;
}

std::shared_ptr<const ModelMetrics> ComputeWorker::weightMetrics(
    const Model& model, const ComputeRequest& request, AttentionKind kind,
    std::map<std::string, std::shared_ptr<const ModelMetrics>>& cache) {
    const std::string key = metricsKey(request.config, kind, request.pairing);
    auto cached = cache.find(key);
    if (cached == cache.end()) {
        auto weights = std::make_shared<const ModelMetrics>(analyzeModel(
            model, request.config, nullptr, request.cancel.get(),
            [this, sequence = request.sequence](int done, int total) {
                emit progressed(sequence, QStringLiteral("analysis"), done, total);
            },
            {.kind = kind,
             .pairing = request.pairing,
             .roundTripProgress = [this, sequence = request.sequence](int done, int total) {
                 emit progressed(sequence, QStringLiteral("round trip"), done, total);
             }}));
        cached = cache.emplace(key, std::move(weights)).first;
    }
    return cached->second;
}

MetricsSnapshotPtr ComputeWorker::runMetrics(const ComputeRequest& request, AttentionKind kind,
                                             const TraceSnapshot* snapshot) {
    QElapsedTimer timer;
    timer.start();
    auto metrics =
        std::make_shared<ModelMetrics>(*weightMetrics(*m_model, request, kind, m_weightMetrics));
    if (snapshot) {
        const Architecture masks = architectureOf(*m_model, kind);
        addTraceMetrics(*metrics, *snapshot->trace, &masks, request.config);
    }
    if (m_comparison && snapshot && snapshot->compared) {
        const auto theirs =
            weightMetrics(*m_comparison->model, request, kind, m_comparison->metrics);
        addComparisonMetrics(*metrics, *snapshot->trace, *theirs, *snapshot->compared);
    }
    auto out = std::make_shared<MetricsSnapshot>();
    out->sequence = request.sequence;
    out->config = request.config;
    out->kind = kind;
    out->pairing = request.pairing;
    out->metrics = std::move(metrics);
    out->milliseconds = elapsedMs(timer);
    return out;
}

}  // namespace qkv::ui
