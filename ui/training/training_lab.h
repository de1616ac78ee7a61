#pragma once
// The state behind the Training tab: the open model's trained variants (variant_family.h), their
// training logs, and the current sentence's attention at one head under each of them, computed
// on the lab's own worker thread. Files that change on disk (a run still training writes a new
// log and checkpoint every eval-interval steps; new variants appear) are read again.
#include <QFileSystemWatcher>
#include <QObject>
#include <QString>
#include <QThread>
#include <QTimer>
#include <atomic>
#include <memory>
#include <optional>
#include <vector>

#include "ui/compute/latest_request.h"
#include "ui/training/training_run.h"
#include "ui/training/variant_attention.h"
#include "ui/training/variant_family.h"

namespace qkv::ui {

class VariantWorker;

struct LoggedVariant {
    VariantFolder variant;
    std::optional<TrainingRun> run;  // nullopt: no training_log.json
    QString error;                   // the log is there but unreadable
};

class TrainingLab : public QObject {
    Q_OBJECT
  public:
    static constexpr int kReloadDelayMs = 300;

    explicit TrainingLab(QObject* parent = nullptr);
    ~TrainingLab() override;

    // Finds MODEL_FOLDER's variants and reads their logs; nothing happens if it is the folder
    // already shown. An empty folder clears the lab.
    void setModelFolder(const QString& folder);
    const VariantFamily& family() const { return m_family; }
    const std::vector<LoggedVariant>& variants() const { return m_variants; }
    bool hasTrainingLog() const;
    // Worth a tab: some variant has a log, or there are at least two to compare.
    bool isEmpty() const;

    // Computes the sentence's attention at (layer, head) under every variant unless the latest
    // result (or request) is for exactly this; attentionChanged when it is in.
    void requestAttention(const QString& text, int layer, int head);
    VariantSnapshotPtr attention() const { return m_attention; }
    bool isBusy() const { return m_busy; }
    void cancel();

  signals:
    void variantsChanged();
    void attentionChanged();
    void busyChanged(bool busy);

  private:
    void reload();
    void watch();
    void submit();
    void setBusy(bool busy);
    void onReady(const VariantSnapshotPtr& snapshot);

    QThread m_thread;
    VariantWorker* m_worker = nullptr;
    QFileSystemWatcher m_watcher;
    QTimer m_reloadDelay;

    QString m_folder;
    VariantFamily m_family;
    std::vector<LoggedVariant> m_variants;

    QString m_text;  // the latest request
    int m_layer = -1;
    int m_head = -1;
    LatestRequest m_requests;
    VariantSnapshotPtr m_attention;
    bool m_busy = false;
};

}  // namespace qkv::ui
