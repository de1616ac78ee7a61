#include "ui/document/typing_pacer.h"

#include <algorithm>

namespace qkv::ui {

TypingPacer::TypingPacer(QObject* parent) : QObject(parent) {
    m_wait.setSingleShot(true);
    connect(&m_wait, &QTimer::timeout, this, &TypingPacer::ready);
}

qint64 TypingPacer::waitAfter(qint64 lastMs) {
    return lastMs <= kFastMs ? 0 : std::min(lastMs / 4, kMaxWaitMs);
}

void TypingPacer::typed() {
    if (m_running) {
        m_pending = true;
        return;
    }
    const qint64 wait = waitAfter(m_lastMs);
    if (wait == 0) {
        emit ready();
        return;
    }
    m_wait.start(static_cast<int>(wait));  // restarted by each keystroke: waits for a pause
}

void TypingPacer::started() {
    m_wait.stop();
    m_pending = false;
    m_running = true;
    m_clock.start();
}

void TypingPacer::finished() {
    if (!m_running) return;
    m_running = false;
    m_lastMs = m_clock.elapsed();
    if (!m_pending) return;
    m_pending = false;
    emit ready();
}

void TypingPacer::stopped() {
    m_wait.stop();
    m_pending = false;
    m_running = false;
}

}  // namespace qkv::ui
