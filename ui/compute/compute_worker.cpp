#include "ui/compute/compute_worker.h"

#include <QElapsedTimer>

#include "gpu/backend_factory.h"
#include "ui/compute/capture_policy.h"
#include "ui/compute/token_list.h"

namespace qkv::ui {
namespace {

double elapsedMs(const QElapsedTimer& timer) { return timer.nsecsElapsed() / 1e6; }

}  // namespace

ComputeWorker::ComputeWorker(const LatestRequest& computations, const LatestRequest& loads)
    : m_computations(computations), m_loads(loads) {
    qRegisterMetaType<std::shared_ptr<const qkv::Model>>();
    qRegisterMetaType<TraceSnapshotPtr>();
    qRegisterMetaType<MetricsSnapshotPtr>();
    qRegisterMetaType<HeadMetricsSnapshotPtr>();
}

// The forward pass refers to the model and backend: it goes first.
ComputeWorker::~ComputeWorker() { m_forward.reset(); }

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
        m_forward.reset();
        m_model = std::move(model);
        m_backend = std::move(backend);
        m_forward = std::move(forward);
        m_weightMetrics.clear();
        emit modelLoaded(load, m_model, m_backendChoice, QString::fromStdString(m_backend->name()));
        if (!backendError.isEmpty()) emit backendFailed(requested, backendError);
    } catch (const Error& e) {
        emit modelFailed(load, folder, QString::fromStdString(e.what()));
    } catch (const std::bad_alloc&) {
        emit modelFailed(load, folder, QStringLiteral("out of memory while opening the model"));
    } catch (const std::exception& e) {
        emit modelFailed(load, folder, QStringLiteral("internal error: ") + e.what());
    }
}

void ComputeWorker::selectBackend(const QString& choice) {
    try {
        std::unique_ptr<Backend> backend = createBackend(choice.toStdString());
        std::unique_ptr<ForwardPass> forward;
        if (m_model) forward = std::make_unique<ForwardPass>(*m_model, *backend);
        m_forward = std::move(forward);
        m_backend = std::move(backend);
        m_backendChoice = choice;
        emit backendChanged(choice, QString::fromStdString(m_backend->name()));
    } catch (const Error& e) {
        emit backendFailed(choice, QString::fromStdString(e.what()));
    }
}

bool ComputeWorker::isStale(const ComputeRequest& request) const {
    return m_computations.isStale(request.sequence, request.cancel.get());
}

void ComputeWorker::compute(const ComputeRequest& request) {
    if (isStale(request)) return;
    if (!m_forward) {
        emit computeFailed(request.sequence, QStringLiteral("no model is open"));
        return;
    }
    try {
        TraceSnapshotPtr snapshot = runForward(request);
        emit traceReady(snapshot);
        if (isStale(request)) return;
        const Architecture& c = m_model->architecture();
        if (!m_weightMetrics.count(request.config.name()) && request.layer < c.layers &&
            request.head < c.heads) {
            auto head = std::make_shared<HeadMetricsSnapshot>();
            head->sequence = request.sequence;
            head->config = request.config;
            head->layer = request.layer;
            head->head = request.head;
            head->metrics = analyzeHead(*m_model, request.config, request.layer, request.head,
                                        snapshot->trace.get());
            emit headMetricsReady(head);
            if (isStale(request)) return;
        }
        emit metricsReady(runMetrics(request, *snapshot));
    } catch (const Cancelled&) {
        // Superseded by a newer request: nothing to report.
    } catch (const Error& e) {
        emit computeFailed(request.sequence, QString::fromStdString(e.what()));
    } catch (const std::bad_alloc&) {
        emit computeFailed(
            request.sequence,
            QStringLiteral("out of memory: the sentence is too long for this model"));
    } catch (const std::exception& e) {
        emit computeFailed(request.sequence, QStringLiteral("internal error: ") + e.what());
    }
}

TraceSnapshotPtr ComputeWorker::runForward(const ComputeRequest& request) {
    QElapsedTimer timer;
    timer.start();
    TokenizedText tokenized = tokenizeForModel(*m_model, request.text);
    if (tokenized.tokens.empty()) throw Error("the sentence gives no tokens");

    auto snapshot = std::make_shared<TraceSnapshot>();
    snapshot->sequence = request.sequence;
    snapshot->text = request.text;
    snapshot->tokens = std::move(tokenized.tokens);
    snapshot->truncatedFrom = tokenized.truncatedFrom;
    snapshot->config = request.config;
    snapshot->backend = QString::fromStdString(m_backend->name());

    ForwardRequest forward;
    for (const ShownToken& t : snapshot->tokens) forward.ids.push_back(t.id);
    forward.config = request.config;
    forward.logits = LogitsMode::None;
    forward.cancel = request.cancel.get();
    forward.progress = [this, sequence = request.sequence](int done, int total) {
        emit progressed(sequence, QStringLiteral("forward"), done, total);
    };
    const bool compare = !(request.config == WConfiguration{});
    forward.capture =
        capturePolicy(m_model->architecture(), static_cast<int>(forward.ids.size()),
                      compare ? 2 : 1, request.layer, request.head, request.captureAll);
    snapshot->capture = forward.capture;
    auto trace = std::make_shared<const AttentionTrace>(m_forward->run(forward).trace);
    snapshot->trace = trace;
    if (compare) {
        forward.config = WConfiguration{};
        snapshot->learned = std::make_shared<const AttentionTrace>(m_forward->run(forward).trace);
    } else {
        snapshot->learned = trace;
    }
    snapshot->milliseconds = elapsedMs(timer);
    return snapshot;
}

MetricsSnapshotPtr ComputeWorker::runMetrics(const ComputeRequest& request,
                                             const TraceSnapshot& snapshot) {
    QElapsedTimer timer;
    timer.start();
    const std::string key = request.config.name();
    auto cached = m_weightMetrics.find(key);
    if (cached == m_weightMetrics.end()) {
        auto weights = std::make_shared<const ModelMetrics>(
            analyzeModel(*m_model, request.config, nullptr, request.cancel.get(),
                         [this, sequence = request.sequence](int done, int total) {
                             emit progressed(sequence, QStringLiteral("analysis"), done, total);
                         }));
        cached = m_weightMetrics.emplace(key, std::move(weights)).first;
    }
    auto metrics = std::make_shared<ModelMetrics>(*cached->second);
    addScoreSymmetry(*metrics, *snapshot.trace);
    auto out = std::make_shared<MetricsSnapshot>();
    out->sequence = request.sequence;
    out->config = request.config;
    out->metrics = std::move(metrics);
    out->milliseconds = elapsedMs(timer);
    return out;
}

}  // namespace qkv::ui
