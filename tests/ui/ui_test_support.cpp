#include "tests/ui/ui_test_support.h"

#include <QLineEdit>
#include <QStringList>
#include <QWidget>
#include <cstdlib>

#include "core/backend/backend.h"
#include "ui/views/sentence_bar.h"

namespace qkv::ui::test {

void keepScreenshot(QWidget* widget, const QString& name) {
    if (const char* dir = std::getenv("QKV_TEST_SCREENSHOTS"))
        widget->grab().save(QStringLiteral("%1/%2.png").arg(QString::fromLocal8Bit(dir), name));
}

QString storyOfLength(const Model& model, int tokens) {
    const QStringList parts{QStringLiteral("Once upon a time there was a little girl named Lily."),
                            QStringLiteral("She loved to play in the park with her red ball."),
                            QStringLiteral("One day, a big dog came and took the ball away."),
                            QStringLiteral("Lily was sad, but her friend Tom helped her find it.")};
    QString text;
    for (int i = 0;; ++i) {
        const QString next = text.isEmpty() ? parts[0] : text + u' ' + parts[i % parts.size()];
        if (static_cast<int>(model.tokenize(next.toStdString()).size()) > tokens) return text;
        text = next;
    }
}

Reference referenceTrace(const QString& folder, const QString& text, const WConfiguration& config) {
    Reference ref;
    ref.model = Model::open(folder.toStdString());
    ref.tokens = ref.model->tokenize(text.toStdString());
    ForwardRequest request;
    for (const Token& t : ref.tokens) request.ids.push_back(t.id);
    request.config = config;
    request.logits = LogitsMode::None;
    auto backend = createCpuBackend();
    ref.trace = ForwardPass(*ref.model, *backend).run(request).trace;
    return ref;
}

void MainWindowTest::SetUp() {
    QSettings().clear();
    window = std::make_unique<MainWindow>();
    window->setMessageSink(&sink);
    window->resize(1400, 900);
    window->show();
    ASSERT_TRUE(QTest::qWaitForWindowExposed(window.get()));
}

void MainWindowTest::TearDown() { window.reset(); }

::testing::AssertionResult MainWindowTest::open(const QString& folder) {
    window->openModel(folder);
    if (!waitFor([&] { return !doc().isLoading(); }))
        return ::testing::AssertionFailure() << "model did not finish loading";
    if (!doc().model())
        return ::testing::AssertionFailure()
               << "model failed: " << sink.errors.join("; ").toStdString();
    return ::testing::AssertionSuccess();
}

::testing::AssertionResult MainWindowTest::type(const QString& text) {
    QLineEdit* editor = window->sentenceBar()->editor();
    editor->clear();
    QTest::keyClicks(editor, text);
    if (editor->text() != text)
        return ::testing::AssertionFailure() << "editor shows " << editor->text().toStdString();
    if (!waitFor(
            [&] { return !doc().isBusy() && doc().snapshot() && doc().snapshot()->text == text; }))
        return ::testing::AssertionFailure() << "no result for '" << text.toStdString() << "'";
    return settle();
}

::testing::AssertionResult MainWindowTest::settle() {
    const bool done = waitFor([&] {
        const auto s = doc().snapshot();
        const auto m = doc().metrics();
        // A slow computation (a loaded machine) makes the next keystroke wait for a pause:
        // nothing runs then, but the latest text is still to come.
        return !doc().isBusy() && !doc().isLoading() && !doc().isTypingPending() &&
               (!s || (m && m->sequence == s->sequence));
    });
    QTest::qWait(20);  // let queued repaints run
    return done ? ::testing::AssertionSuccess()
                : ::testing::AssertionFailure() << "the worker did not settle";
}

}  // namespace qkv::ui::test
