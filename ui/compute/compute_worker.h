#pragma once
// The one thread that owns the model's ForwardPass and backend. Everything slow runs here, in
// the order it was asked for: opening a model folder, choosing a backend, forwards and metrics.
// Requests carry increasing sequence numbers; a request older than the latest one submitted is
// skipped before it starts, and a running one stops at its cancel flag. Results go back to the GUI
// thread through queued signals.
#include <QObject>
#include <QString>
#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <string>

#include "core/backend/backend.h"
#include "core/model/forward.h"
#include "core/model/model.h"
#include "core/model/prefix_reuse.h"
#include "ui/compute/compute_types.h"
#include "ui/compute/latest_request.h"

namespace qkv::ui {

class ComputeWorker : public QObject {
    Q_OBJECT
  public:
    // The GUI side numbers computations and loads apart (typing while a model opens must not
    // cancel the opening); both outlive the worker.
    ComputeWorker(const LatestRequest& computations, const LatestRequest& loads);
    ~ComputeWorker() override;

    // Run on the worker's thread (queued through QMetaObject::invokeMethod).
    // The model gets the backend chosen last (falling back to the CPU, with backendFailed). A
    // stale load is skipped, and one that became stale while the folder was
    // being opened is thrown away: the model open before stays. Model::open itself cannot be
    // interrupted, so a cancelled load still occupies this thread until it returns.
    void loadModel(const QString& folder, quint64 load);
    void selectBackend(const QString& choice);
    void compute(const ComputeRequest& request);
    // A second checkpoint of the open model (a GGUF quantisation, the folder it came from) that
    // every later computation also runs, for File ▸ Compare With…; refused with the reason when
    // it is not one of the open model (requireComparable). An empty location stops comparing.
    // Loads run in the order asked, so the last one asked is what stays.
    void loadComparison(const QString& location);

  signals:
    void modelLoaded(quint64 load, std::shared_ptr<const qkv::Model> model, QString backendChoice,
                     QString backendName);
    void modelFailed(quint64 load, QString folder, QString message);
    void backendChanged(QString choice, QString backendName);
    void backendFailed(QString choice, QString message);
    void traceReady(qkv::ui::TraceSnapshotPtr snapshot);
    void metricsReady(qkv::ui::MetricsSnapshotPtr metrics);
    void headMetricsReady(qkv::ui::HeadMetricsSnapshotPtr metrics);
    void computeFailed(quint64 sequence, QString message);
    // The compared checkpoint's name (empty: none, e.g. after another model opened).
    void comparisonChanged(QString name);
    void comparisonFailed(QString location, QString message);
    // Layers done of a request's forward ("forward") or weight analysis ("analysis").
    void progressed(quint64 sequence, QString stage, int done, int total);

  private:
    // The forward pass and the prefix reuse over it, replaced together.
    void setForward(std::unique_ptr<ForwardPass> forward);
    bool isStale(const ComputeRequest& request) const;
    TraceSnapshotPtr runForward(const ComputeRequest& request);
    void poolHead(const ComputeRequest& request, TraceSnapshot& snapshot);
    void readTarget(const ComputeRequest& request, const std::vector<int>& sourceIds,
                    TraceSnapshot& snapshot);
    QString writtenTarget(const std::vector<int>& ids) const;
    // The weights' metrics, with the sentence's where there is one (null: the weights' only).
    MetricsSnapshotPtr runMetrics(const ComputeRequest& request, AttentionKind kind,
                                  const TraceSnapshot* snapshot);
    void emitMetrics(const MetricsSnapshotPtr& metrics);
    // Runs `work`; a failure becomes computeFailed (a cancellation, nothing). False if it threw.
    bool reportingFailure(quint64 sequence, const std::function<void()>& work);
    // Which attention a request shows: its kind for an encoder-decoder model, else Self.
    AttentionKind attentionKindOf(const ComputeRequest& request) const;
    // The learned-weights metrics of `model` under the request's configuration, cached in `cache`.
    std::shared_ptr<const ModelMetrics> weightMetrics(
        const Model& model, const ComputeRequest& request, AttentionKind kind,
        std::map<std::string, std::shared_ptr<const ModelMetrics>>& cache);
    void dropComparison();

    const LatestRequest& m_computations;
    const LatestRequest& m_loads;
    std::shared_ptr<const Model> m_model;
    QString m_backendChoice = QStringLiteral("auto");
    std::unique_ptr<Backend> m_backend;
    std::unique_ptr<ForwardPass> m_forward;
    // The sentence's forwards, reusing the unchanged prefix of the previous ones (typing).
    std::unique_ptr<ReusingForward> m_reusing;
    // Weight metrics depend on the model and configuration only, never on the sentence.
    std::map<std::string, std::shared_ptr<const ModelMetrics>> m_weightMetrics;
    // The compared checkpoint (File ▸ Compare With…), its own backend and forward (destroyed
    // first), and its weight metrics.
    struct Comparison {
        std::shared_ptr<const Model> model;
        std::unique_ptr<Backend> backend;
        std::unique_ptr<ForwardPass> forward;
        std::map<std::string, std::shared_ptr<const ModelMetrics>> metrics;
    };
    std::unique_ptr<Comparison> m_comparison;
};

}  // namespace qkv::ui
