#pragma once
// Shared helpers of the ui tests: a main window with a recording message sink, waiting for the
// worker, and the reference computation straight from core.
#include <gtest/gtest.h>

#include <QSettings>
#include <QString>
#include <QTest>
#include <filesystem>
#include <functional>
#include <memory>

#include "core/model/forward.h"
#include "core/model/model.h"
#include "tests/support/shared_assets.h"
#include "ui/document/lab_document.h"
#include "ui/support/message_sink.h"
#include "ui/window/main_window.h"

namespace qkv::ui::test {

// The sentence most ui tests type (the shared references' first one).
inline const QString kMovie = QStringLiteral("The movie was a box office bomb.");

inline bool waitFor(const std::function<bool()>& done, int timeoutMs = 30000) {
    return QTest::qWaitFor(done, timeoutMs);
}

inline QString modelPath(const std::filesystem::path& shared, const char* name) {
    return QString::fromStdString((shared / "models" / name).string());
}

// To look at: with QKV_TEST_SCREENSHOTS=DIR, the widget as drawn is kept as DIR/NAME.png.
void keepScreenshot(QWidget* widget, const QString& name);

// Whole sentences of a story, as many as the model's tokenizer keeps within `tokens`.
QString storyOfLength(const Model& model, int tokens);

// The core's own answer for a sentence, computed without the UI.
struct Reference {
    std::unique_ptr<Model> model;
    std::vector<Token> tokens;
    AttentionTrace trace;
};
Reference referenceTrace(const QString& folder, const QString& text,
                         const WConfiguration& config = {});

class MainWindowTest : public ::testing::Test {
  protected:
    void SetUp() override;
    void TearDown() override;

    LabDocument& doc() { return window->document(); }
    // Opens the model and waits until it is ready.
    ::testing::AssertionResult open(const QString& folder);
    // Types into the sentence editor (as a user would) and waits for that text's result.
    ::testing::AssertionResult type(const QString& text);
    // Waits until nothing is computing and the latest result is shown.
    ::testing::AssertionResult settle();

    std::unique_ptr<MainWindow> window;
    RecordingMessageSink sink;
};

}  // namespace qkv::ui::test
