#pragma once
// When the text a keystroke leaves is computed. Typing never cancels a computation: a keystroke
// while one runs only marks the text pending, and ready() follows as soon as that computation
// ends (result or failure), so the worker always finishes what it starts and then takes the
// latest text — cancelling on every keystroke would show nothing while typing on a slow model.
// A keystroke while nothing runs computes at once if the last computation was fast (at most
// kFastMs), else after waitAfter(last) ms without a further keystroke: on a slow model that
// waits for a pause in the typing instead of spending a whole computation on a word's first
// letter. GUI thread only.
#include <QElapsedTimer>
#include <QObject>
#include <QTimer>

namespace qkv::ui {

class TypingPacer : public QObject {
    Q_OBJECT
  public:
    // A computation this fast keeps up with typing: keystrokes compute at once.
    static constexpr qint64 kFastMs = 100;
    // The longest wait: a little above the pause between keystrokes of steady typing.
    static constexpr qint64 kMaxWaitMs = 250;

    explicit TypingPacer(QObject* parent = nullptr);

    // 0 after a fast computation, else a quarter of it (a wait costs less than a computation
    // thrown away by the next keystroke would), at most kMaxWaitMs.
    static qint64 waitAfter(qint64 lastMs);

    // The text changed by typing: ready() now, after the wait, or when the running one ends.
    void typed();
    // A computation of the latest text was sent: nothing is pending any more.
    void started();
    // The running computation gave its result or failed: its duration paces the next, and a
    // pending text is ready at once.
    void finished();
    // Nothing runs (cancelled, or there was nothing to compute): pending text is dropped.
    void stopped();
    // Another model: the last duration says nothing about it.
    void forgetDuration() { m_lastMs = 0; }

    bool isRunning() const { return m_running; }
    bool isPending() const { return m_pending || m_wait.isActive(); }
    qint64 lastDurationMs() const { return m_lastMs; }

  signals:
    void ready();  // compute the latest text now

  private:
    QTimer m_wait;
    QElapsedTimer m_clock;  // since started()
    qint64 m_lastMs = 0;
    bool m_running = false;
    bool m_pending = false;  // typed while running
};

}  // namespace qkv::ui
