// The GUI never blocks: while the worker runs the largest shared model on a sentence near its
// 512-token context with every head kept and the overview's metrics, the event loop keeps
// serving a 100 Hz timer at 20 Hz or more, and no single pause exceeds kMaxGapMs (drawing three
// 505 x 505 heatmaps on the GUI thread takes 40-70 ms here); cancelling leaves the document idle
// at once and the worker free for the next request within 200 ms. Every build runs the same
// steps and checks their results; the time limits are asserted in optimised builds without a
// sanitizer only (ThreadSanitizer slows everything ~10x), the others print the measurements.
#include <QElapsedTimer>
#include <QLineEdit>
#include <QTimer>
#include <algorithm>
#include <iostream>

#include "tests/ui/timing_limits.h"
#include "tests/ui/ui_test_support.h"
#include "ui/views/sentence_bar.h"

namespace qkv::ui::test {
namespace {

constexpr int kTickMs = 10;
constexpr double kMinTickHz = 20;
constexpr qint64 kMaxGapMs = 150;
constexpr qint64 kMaxCancelMs = 200;

// Records when a fast timer actually fires on the GUI thread.
class TickRecorder {
  public:
    TickRecorder() {
        m_timer.setInterval(kTickMs);
        m_timer.setTimerType(Qt::PreciseTimer);
        QObject::connect(&m_timer, &QTimer::timeout,
                         [this] { m_ticks.push_back(m_clock.elapsed()); });
        m_clock.start();
        m_timer.start();
    }
    void stop() {
        m_timer.stop();
        m_end = m_clock.elapsed();
    }
    double hz() const { return m_end > 0 ? 1000.0 * m_ticks.size() / m_end : 0; }
    qint64 longestGapMs() const {
        qint64 gap = m_ticks.empty() ? m_end : m_ticks.front();
        for (size_t i = 1; i < m_ticks.size(); ++i)
            gap = std::max(gap, m_ticks[i] - m_ticks[i - 1]);
        return m_ticks.empty() ? gap : std::max(gap, m_end - m_ticks.back());
    }
    qint64 durationMs() const { return m_end; }

  private:
    QElapsedTimer m_clock;
    QTimer m_timer;
    std::vector<qint64> m_ticks;
    qint64 m_end = 0;
};

class ResponsivenessThreadTest : public MainWindowTest {
  protected:
    // stories260K with a sentence of 490-512 tokens, every head kept.
    void openLongSentence() {
        const auto shared = ::qkv::test::sharedDir();
        ASSERT_TRUE(shared);
        ASSERT_TRUE(open(modelPath(*shared, "stories260K")));
        m_text = storyOfLength(*doc().model(), doc().model()->architecture().contextLength);
        m_tokens = static_cast<int>(doc().model()->tokenize(m_text.toStdString()).size());
        ASSERT_GE(m_tokens, 490);
        window->sentenceBar()->editor()->setText(m_text);
        doc().recompute();
        ASSERT_TRUE(settle());
    }
    // Runs one computation of every head under `config` and waits for its metrics.
    ::testing::AssertionResult computeAll(const char* config) {
        doc().setConfig(WConfiguration::parse(config));
        doc().computeAllHeads();
        return settle();
    }
    QString m_text;
    int m_tokens = 0;
};

TEST_F(ResponsivenessThreadTest, EventLoopKeepsTickingDuringALongComputation) {
    QKV_REQUIRE_SHARED(shared);
    openLongSentence();
    window->showTab(MainWindow::Tab::Overview);
    ASSERT_TRUE(settle());

    TickRecorder ticks;
    QElapsedTimer clock;
    clock.start();
    // Each configuration once: its weight metrics are computed anew, every head is kept, and
    // the results are drawn in the overview, then in the Head and Compare tabs.
    const char* configs[] = {"shared-qk", "tied-kv", "single-w", "sym-scores"};
    const MainWindow::Tab tabs[] = {MainWindow::Tab::Overview, MainWindow::Tab::Head,
                                    MainWindow::Tab::Compare, MainWindow::Tab::Overview};
    for (int i = 0; i < 4; ++i) {
        window->showTab(tabs[i]);
        ASSERT_TRUE(computeAll(configs[i]));
        ASSERT_TRUE(doc().snapshot()->capturesAll());
        ASSERT_EQ(static_cast<int>(doc().snapshot()->tokens.size()), m_tokens);
    }
    ticks.stop();
    const double perComputationMs = clock.elapsed() / 4.0;
    std::cout << "[ measure  ] " << m_tokens << " tokens, 4 computations of every head + metrics + "
              << "drawing in " << clock.elapsed() << " ms (" << perComputationMs
              << " ms each): timer at " << ticks.hz() << " Hz (" << kTickMs
              << " ms interval), longest gap " << ticks.longestGapMs() << " ms\n";
    RecordProperty("timer_hz", std::to_string(ticks.hz()));
    RecordProperty("longest_gap_ms", std::to_string(ticks.longestGapMs()));
    if (!kTimingsMeaningful) return printUnasserted();
    EXPECT_GE(ticks.hz(), kMinTickHz);
    EXPECT_LE(ticks.longestGapMs(), kMaxGapMs) << "the event loop stalled";
}

TEST_F(ResponsivenessThreadTest, CancelLeavesTheDocumentIdleAndTheWorkerFreeWithin200Ms) {
    QKV_REQUIRE_SHARED(shared);
    openLongSentence();
    window->showTab(MainWindow::Tab::Overview);
    // How long an uncancelled computation takes (forward, learned reference and metrics).
    QElapsedTimer clock;
    clock.start();
    ASSERT_TRUE(computeAll("shared-qk"));
    const qint64 fullMs = clock.elapsed();

    // The same work under another configuration, cancelled early in its run (it must still be
    // running, or the test would measure nothing).
    TickRecorder ticks;
    doc().setConfig(WConfiguration::parse("tied-kv"));
    doc().computeAllHeads();
    QTest::qWait(static_cast<int>(std::clamp<qint64>(fullMs / 8, 1, 20)));
    const bool wasBusy = doc().isBusy();
    ASSERT_TRUE(wasBusy) << "the computation ended before it could be cancelled";
    clock.restart();
    doc().cancelComputation();
    const qint64 idleMs = clock.elapsed();
    EXPECT_FALSE(doc().isBusy());

    // The worker is free once it answers a new (short) request.
    const QString shortText = QStringLiteral("Lily ran.");
    window->sentenceBar()->editor()->setText(shortText);
    doc().recompute();
    ASSERT_TRUE(waitFor([&] { return doc().snapshot() && doc().snapshot()->text == shortText; }));
    const qint64 freeMs = clock.elapsed();
    ticks.stop();
    std::cout << "[ measure  ] full computation " << fullMs << " ms (" << m_tokens
              << " tokens); cancelled while busy: document idle after " << idleMs
              << " ms, next result after " << freeMs << " ms; timer " << ticks.hz()
              << " Hz, longest gap " << ticks.longestGapMs() << " ms\n";
    RecordProperty("cancel_idle_ms", std::to_string(idleMs));
    RecordProperty("cancel_free_ms", std::to_string(freeMs));
    if (!kTimingsMeaningful) return printUnasserted();
    EXPECT_LE(idleMs, kMaxCancelMs);
    EXPECT_LE(freeMs, kMaxCancelMs);
}

}  // namespace
}  // namespace qkv::ui::test
