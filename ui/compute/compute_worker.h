#pragma once
// The one thread that owns the model's ForwardPass and backend. Everything slow runs here, in
// the order it was asked for: opening a model folder, choosing a backend, forwards and metrics.
// Requests carry increasing sequence numbers; a request older than the latest one submitted is
// skipped before it starts, and a running one stops at its cancel flag. Results go back to the GUI
// thread through queued signals.
#include <QObject>
#include <QString>
#include <atomic>
#include <map>
#include <memory>
#include <string>

#include "core/backend/backend.h"
#include "core/model/forward.h"
#include "core/model/model.h"
#include "ui/compute/compute_types.h"

namespace qkv::ui {

class ComputeWorker : public QObject {
    Q_OBJECT
public:
    ComputeWorker();
    ~ComputeWorker() override;

    // The GUI thread raises this before queueing a request; see class comment.
    std::atomic<quint64>& latestSequence() { return m_latest; }

    // Run on the worker's thread (queued through QMetaObject::invokeMethod).
    // The model gets the backend chosen last (falling back to the CPU, with backendFailed).
    void loadModel(const QString& folder);
    void selectBackend(const QString& choice);
    void compute(const ComputeRequest& request);

signals:
    void modelLoaded(std::shared_ptr<const qkv::Model> model, QString backendChoice,
                     QString backendName);
    void modelFailed(QString folder, QString message);
    void backendChanged(QString choice, QString backendName);
    void backendFailed(QString choice, QString message);
    void traceReady(qkv::ui::TraceSnapshotPtr snapshot);
    void metricsReady(qkv::ui::MetricsSnapshotPtr metrics);
    void computeFailed(quint64 sequence, QString message);

private:
    bool isStale(const ComputeRequest& request) const;
    TraceSnapshotPtr runForward(const ComputeRequest& request);
    MetricsSnapshotPtr runMetrics(const ComputeRequest& request, const TraceSnapshot& snapshot);

    std::atomic<quint64> m_latest{0};
    std::shared_ptr<const Model> m_model;
    QString m_backendChoice = QStringLiteral("auto");
    std::unique_ptr<Backend> m_backend;
    std::unique_ptr<ForwardPass> m_forward;
    // Weight metrics depend on the model and configuration only, never on the sentence.
    std::map<std::string, std::shared_ptr<const ModelMetrics>> m_weightMetrics;
};

}  // namespace qkv::ui
