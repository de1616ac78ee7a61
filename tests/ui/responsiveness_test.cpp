// The GUI never blocks: while the worker runs the largest shared model on a sentence near its
// 512-token context with every head kept and the overview's metrics, the event loop serves
// events before the result arrives; cancelling leaves the document idle at once, and the worker
// then answers the next request with its result, never the cancelled one's. What a 100 Hz timer
// saw meanwhile (its rate and longest pause: drawing three 505 x 505 heatmaps on the GUI thread
// takes 40-70 ms here) and how soon the worker was free are printed, not asserted (see
// tests/ui/measurement.h).
#include <QElapsedTimer>
#include <QLineEdit>
#include <QThread>
#include <QTimer>
#include <algorithm>
#include <iostream>

#include "tests/ui/measurement.h"
#include "tests/ui/ui_test_support.h"
#include "ui/views/sentence_bar.h"

namespace qkv::ui::test {
namespace {

constexpr int kTickMs = 10;

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
    // Runs one computation of every head under `config` and waits for its metrics. An event
    // posted just before the request is delivered before the worker's result (a thread's posted
    // events arrive in order), so it finds the document busy unless the request computed on
    // the GUI thread before returning.
    ::testing::AssertionResult computeAll(const char* config) {
        doc().setConfig(WConfiguration::parse(config));
        bool servedWhileBusy = false;
        QMetaObject::invokeMethod(
            window.get(), [&] { servedWhileBusy = doc().isBusy(); }, Qt::QueuedConnection);
        doc().computeAllHeads();
        if (auto settled = settle(); !settled) return settled;
        return servedWhileBusy ? ::testing::AssertionSuccess()
                               : ::testing::AssertionFailure()
                                     << "the event loop served nothing while " << config
                                     << " was computed";
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
    // the results are drawn in the overview, then in the Head and Compare tabs (in debug and
    // sanitizer builds, where each takes seconds, the first two).
    const char* configs[] = {"shared-qk", "tied-kv", "single-w", "sym-scores"};
    const MainWindow::Tab tabs[] = {MainWindow::Tab::Overview, MainWindow::Tab::Head,
                                    MainWindow::Tab::Compare, MainWindow::Tab::Overview};
    const int computations = kFullMeasurement ? 4 : 2;
    for (int i = 0; i < computations; ++i) {
        window->showTab(tabs[i]);
        ASSERT_TRUE(computeAll(configs[i]));
        ASSERT_TRUE(doc().snapshot()->capturesAll());
        ASSERT_EQ(static_cast<int>(doc().snapshot()->tokens.size()), m_tokens);
    }
    ticks.stop();
    const double perComputationMs = clock.elapsed() / double(computations);
    std::cout << "[ measure  ] " << m_tokens << " tokens, " << computations
              << " computations of every head + metrics + "
              << "drawing in " << clock.elapsed() << " ms (" << perComputationMs
              << " ms each): timer at " << ticks.hz() << " Hz (" << kTickMs
              << " ms interval), longest gap " << ticks.longestGapMs() << " ms\n";
    RecordProperty("timer_hz", std::to_string(ticks.hz()));
    RecordProperty("longest_gap_ms", std::to_string(ticks.longestGapMs()));
}

TEST_F(ResponsivenessThreadTest, CancelLeavesTheDocumentIdleAndTheWorkerFreeForTheNextRequest) {
    QKV_REQUIRE_SHARED(shared);
    openLongSentence();
    window->showTab(MainWindow::Tab::Overview);
    // How long an uncancelled computation takes (forward, learned reference and metrics).
    QElapsedTimer clock;
    clock.start();
    ASSERT_TRUE(computeAll("shared-qk"));
    const qint64 fullMs = clock.elapsed();

    // The same work under another configuration, cancelled early in its run. The GUI thread
    // sleeps instead of serving events meanwhile, so the result cannot have been received yet:
    // the document is still busy when the cancel comes, however loaded the machine.
    TickRecorder ticks;
    doc().setConfig(WConfiguration::parse("tied-kv"));
    doc().computeAllHeads();
    QThread::msleep(static_cast<unsigned long>(std::clamp<qint64>(fullMs / 8, 1, 20)));
    ASSERT_TRUE(doc().isBusy());
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
    ASSERT_TRUE(settle());
    EXPECT_EQ(doc().snapshot()->text, shortText) << "the cancelled computation's result was shown";
    ticks.stop();
    std::cout << "[ measure  ] full computation " << fullMs << " ms (" << m_tokens
              << " tokens); cancelled while busy: document idle after " << idleMs
              << " ms, next result after " << freeMs << " ms; timer " << ticks.hz()
              << " Hz, longest gap " << ticks.longestGapMs() << " ms\n";
    RecordProperty("cancel_idle_ms", std::to_string(idleMs));
    RecordProperty("cancel_free_ms", std::to_string(freeMs));
}

}  // namespace
}  // namespace qkv::ui::test
