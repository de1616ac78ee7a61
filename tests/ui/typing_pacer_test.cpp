// When typed text is computed: at once while idle after fast computations, once after the running
// computation for any number of keystrokes during it, after a pause when computations are slow.
#include "ui/document/typing_pacer.h"

#include <gtest/gtest.h>

#include <QElapsedTimer>
#include <QTest>
#include <QThread>

namespace qkv::ui {
namespace {

class TypingPacerTest : public ::testing::Test {
  protected:
    TypingPacerTest() {
        QObject::connect(&pacer, &TypingPacer::ready, [this] { ++ready; });
    }
    // A computation that takes `ms` on the pacer's clock.
    void compute(qint64 ms) {
        pacer.started();
        QThread::msleep(static_cast<unsigned long>(ms));
        pacer.finished();
    }
    TypingPacer pacer;
    int ready = 0;
};

TEST(TypingPacerWait, NoneAfterFastComputationsAQuarterAfterSlowOnesAtMost250Ms) {
    EXPECT_EQ(TypingPacer::waitAfter(0), 0);
    EXPECT_EQ(TypingPacer::waitAfter(TypingPacer::kFastMs), 0);
    EXPECT_EQ(TypingPacer::waitAfter(400), 100);
    EXPECT_EQ(TypingPacer::waitAfter(1000), 250);
    EXPECT_EQ(TypingPacer::waitAfter(60000), TypingPacer::kMaxWaitMs);
}

TEST_F(TypingPacerTest, IdleAfterAFastComputationAKeystrokeIsReadyAtOnce) {
    pacer.typed();
    EXPECT_EQ(ready, 1);
    compute(1);
    pacer.typed();
    // A 1 ms computation is fast unless a loaded machine held this thread for over kFastMs;
    // then the keystroke waits, as after any slow computation.
    if (pacer.lastDurationMs() <= TypingPacer::kFastMs) {
        EXPECT_EQ(ready, 2);
    } else {
        EXPECT_EQ(ready, 1);
        EXPECT_TRUE(pacer.isPending());
    }
}

TEST_F(TypingPacerTest, KeystrokesWhileRunningAreReadyOnceWhenItFinishes) {
    pacer.started();
    for (int i = 0; i < 5; ++i) pacer.typed();
    EXPECT_EQ(ready, 0) << "a running computation is never interrupted by typing";
    EXPECT_TRUE(pacer.isPending());
    pacer.finished();
    EXPECT_EQ(ready, 1);
    EXPECT_FALSE(pacer.isPending());
    pacer.finished();  // a second end (a late failure) sends nothing more
    EXPECT_EQ(ready, 1);
}

TEST_F(TypingPacerTest, NothingIsPendingAfterAFinishWithoutKeystrokes) {
    pacer.started();
    pacer.finished();
    EXPECT_EQ(ready, 0);
}

TEST_F(TypingPacerTest, StoppingDropsPendingKeystrokes) {
    pacer.started();
    pacer.typed();
    pacer.stopped();
    EXPECT_FALSE(pacer.isRunning());
    EXPECT_FALSE(pacer.isPending());
    pacer.finished();
    EXPECT_EQ(ready, 0);
    pacer.typed();  // idle again: typing computes
    EXPECT_EQ(ready, 1);
}

TEST_F(TypingPacerTest, AfterASlowComputationKeystrokesWaitForAPause) {
    compute(400);
    const qint64 wait = TypingPacer::waitAfter(pacer.lastDurationMs());
    ASSERT_GE(wait, 100);
    QElapsedTimer clock;
    clock.start();
    pacer.typed();
    EXPECT_EQ(ready, 0);
    // Half the wait passes without serving events, so the first wait cannot end meanwhile,
    // however long the sleep overruns on a loaded machine.
    QThread::msleep(static_cast<unsigned long>(wait / 2));
    pacer.typed();  // restarts the wait
    EXPECT_EQ(ready, 0);
    ASSERT_TRUE(QTest::qWaitFor([&] { return ready > 0; }, 5000));
    // The restarted wait ends at 1.5 × wait or later, not at 1 × wait; Qt's coarse timer may fire
    // up to 5 % early, so the bound sits between the two.
    EXPECT_GE(clock.elapsed(), wait + wait / 4);
    EXPECT_EQ(ready, 1);
}

TEST_F(TypingPacerTest, ANewModelTypesAtOnceAgain) {
    compute(400);
    pacer.forgetDuration();
    pacer.typed();
    EXPECT_EQ(ready, 1);
}

TEST_F(TypingPacerTest, AComputationSentDuringTheWaitTakesThePendingText) {
    compute(400);
    pacer.typed();
    pacer.started();  // e.g. recompute(): the latest text is on its way
    pacer.finished();
    QTest::qWait(static_cast<int>(TypingPacer::kMaxWaitMs) + 50);
    EXPECT_EQ(ready, 0);
}

}  // namespace
}  // namespace qkv::ui
