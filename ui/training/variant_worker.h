#pragma once
// The Training tab's worker thread: opens each variant's model (kept open until its files change
// on disk, as they do every checkpoint while it trains), tokenizes the sentence with the
// variant's own tokenizer and runs its forward on the CPU, capturing one head. Requests are
// numbered as the document's are: one older than the latest submitted is skipped, a running one
// stops at its cancel flag, and results reach the GUI thread through a queued signal.
#include <QObject>
#include <QString>
#include <atomic>
#include <map>
#include <memory>

#include "core/backend/backend.h"
#include "core/model/forward.h"
#include "core/model/model.h"
#include "ui/compute/latest_request.h"
#include "ui/training/variant_attention.h"

namespace qkv::ui {

class VariantWorker : public QObject {
    Q_OBJECT
  public:
    explicit VariantWorker(const LatestRequest& requests);  // numbered by the GUI side
    ~VariantWorker() override;

    // The GUI thread raises this before queueing a request.

    // Runs on the worker's thread (queued through QMetaObject::invokeMethod).
    void compute(const VariantRequest& request);

  signals:
    void ready(qkv::ui::VariantSnapshotPtr snapshot);

  private:
    struct OpenModel {
        QString signature;  // the folder's files, sizes and times when it was opened
        std::unique_ptr<Model> model;
        std::unique_ptr<ForwardPass> forward;
    };
    bool isStale(const VariantRequest& request) const;
    OpenModel& open(const QString& folder);
    VariantAttention run(const VariantFolder& variant, const VariantRequest& request);

    const LatestRequest& m_requests;
    std::unique_ptr<Backend> m_backend;
    std::map<QString, OpenModel> m_models;  // by folder
};

}  // namespace qkv::ui
