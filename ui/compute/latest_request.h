#pragma once
// "Latest request wins" between a GUI-thread owner and its worker thread. The owner numbers each
// request (start()), which raises the previous request's cancel flag; the worker skips a queued
// request older than the latest number and stops a running one at its flag (isStale()); the
// owner keeps only results whose number is still current. One object, owned by the GUI side and
// outliving the worker: start(), cancel(), close() and isCurrent() on the GUI thread, isStale()
// on the worker's.
#include <QtGlobal>
#include <atomic>
#include <memory>

namespace qkv::ui {

class LatestRequest {
  public:
    struct Ticket {
        quint64 sequence = 0;
        std::shared_ptr<std::atomic<bool>> cancel;  // raised when a newer request starts
    };

    // A new request: the previous one is cancelled and everything older becomes stale.
    Ticket start();
    // Cancels the running request; everything submitted so far becomes stale.
    void cancel() { start(); }
    // For the owner's destruction: nothing still queued runs.
    void close();
    bool isCurrent(quint64 sequence) const { return sequence == m_sequence; }

    // Worker thread: skip or stop this request.
    bool isStale(quint64 sequence, const std::atomic<bool>* cancel = nullptr) const {
        return sequence < m_latest.load() || (cancel && cancel->load());
    }

  private:
    quint64 m_sequence = 0;  // GUI thread only
    std::shared_ptr<std::atomic<bool>> m_cancel;
    std::atomic<quint64> m_latest{0};
};

}  // namespace qkv::ui
