#pragma once
// A Hub download in progress: what is being fetched, per-file and total progress bars and a
// Cancel button. The download runs on a worker thread; a cancelled or broken one leaves its
// partial file in the cache, and the next try resumes it.
#include <QFutureWatcher>
#include <QWidget>
#include <atomic>
#include <memory>

#include "core/hub/hub_download.h"

class QLabel;
class QProgressBar;
class QPushButton;

namespace qkv::ui {

class HubDownloadPanel : public QWidget {
    Q_OBJECT
  public:
    explicit HubDownloadPanel(QWidget* parent = nullptr);
    ~HubDownloadPanel() override;

    bool isRunning() const { return m_watcher.isRunning(); }
    void start(const QString& id, const QString& revision);
    // Asks a running download to stop and waits for it (a second at most).
    void cancelAndWait();

  signals:
    void finished(const QString& id, const QString& snapshot);
    void failed(const QString& id, const QString& message);  // empty message: cancelled

  private:
    void show(const DownloadProgress& progress);
    void done();

    QLabel* m_what = nullptr;
    QProgressBar* m_file = nullptr;
    QProgressBar* m_total = nullptr;
    QPushButton* m_cancel = nullptr;
    QString m_id;
    std::shared_ptr<std::atomic<bool>> m_cancelled;
    struct Outcome {
        QString snapshot;
        QString error;  // empty with an empty snapshot: cancelled
    };
    QFutureWatcher<Outcome> m_watcher;
};

}  // namespace qkv::ui
