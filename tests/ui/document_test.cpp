// The document's worker protocol seen from the window: fast typing shows only the latest text's
// result, keystrokes while a computation runs wait for it and are computed once, broken folders and
// unavailable backends become dialogs (through the message sink).
#include <QDir>
#include <QFile>
#include <QLineEdit>
#include <QTemporaryDir>

#include "core/analysis/head_metrics.h"
#include "tests/support/reference.h"
#include "tests/ui/ui_test_support.h"
#include "ui/views/cell_tooltip.h"
#include "ui/views/heatmap_widget.h"
#include "ui/views/overview_view.h"
#include "ui/views/sentence_bar.h"
#include "ui/views/token_chips.h"
#include "ui/views/weight_panel.h"

namespace qkv::ui::test {
namespace {

TEST_F(MainWindowTest, FastTypingShowsOnlyTheLatestTextsResult) {
    QKV_REQUIRE_SHARED(shared);
    ASSERT_TRUE(open(modelPath(shared, "stories260K")));
    QStringList shown;
    QObject::connect(&doc(), &LabDocument::snapshotChanged, window.get(), [&] {
        if (doc().snapshot()) shown << doc().snapshot()->text;
    });
    const QString text = QStringLiteral("Lily saw a big red ball in the park and ran to it.");
    QTest::keyClicks(window->sentenceBar()->editor(), text, Qt::NoModifier, 1);
    ASSERT_TRUE(settle());
    ASSERT_TRUE(doc().snapshot());
    EXPECT_EQ(doc().snapshot()->text, text);
    ASSERT_FALSE(shown.isEmpty());
    EXPECT_EQ(shown.last(), text);
    for (int i = 1; i < shown.size(); ++i)
        EXPECT_GT(shown[i].size(), shown[i - 1].size()) << "an older text's result came back";
    const Reference ref = referenceTrace(modelPath(shared, "stories260K"), text);
    EXPECT_EQ(window->tokenChips()->chipTexts().size(), static_cast<qsizetype>(ref.tokens.size()));
}

TEST_F(MainWindowTest, KeystrokesWhileAComputationRunsAreComputedOnceItEnds) {
    QKV_REQUIRE_SHARED(shared);
    ASSERT_TRUE(open(modelPath(shared, "gpt2-random-tiny")));
    QStringList computed;
    QObject::connect(&doc(), &LabDocument::snapshotChanged, window.get(), [&] {
        if (doc().snapshot()) computed << doc().snapshot()->text;
    });
    // No event is handled between these keystrokes: the first one's computation is still
    // running (its result not yet received) while the others arrive. (Had the last computation
    // taken over 100 ms on a loaded machine, the first keystroke would wait for a pause instead,
    // and only the whole text would be computed.)
    const QString text = QStringLiteral("Can you smell the smell of failure?");
    window->sentenceBar()->editor()->clear();
    QTest::keyClicks(window->sentenceBar()->editor(), text);
    const bool firstComputedAtOnce = doc().isBusy();
    ASSERT_TRUE(waitFor([&] { return !doc().isBusy() && doc().snapshot(); }));
    ASSERT_TRUE(settle());
    const QStringList expected =
        firstComputedAtOnce ? QStringList{text.left(1), text} : QStringList{text};
    EXPECT_EQ(computed, expected)
        << "the first keystroke computes at once and is not cancelled; the rest are computed "
           "together after it";
}

TEST_F(MainWindowTest, BrokenModelFolderGivesADialogNamingTheProblem) {
    QTemporaryDir dir;
    QFile config(QDir(dir.path()).filePath("config.json"));
    ASSERT_TRUE(config.open(QIODevice::WriteOnly));
    config.write("{ \"model_type\": \"gpt2\", ");  // cut short
    config.close();
    window->openModel(dir.path());
    ASSERT_TRUE(waitFor([&] { return !doc().isLoading(); }));
    EXPECT_EQ(doc().model(), nullptr);
    ASSERT_EQ(sink.errors.size(), 1);
    EXPECT_TRUE(sink.errors[0].contains(QStringLiteral("config.json")))
        << sink.errors[0].toStdString();

    window->openModel(QDir(dir.path()).filePath("missing"));
    ASSERT_TRUE(waitFor([&] { return sink.errors.size() == 2; }));
    EXPECT_TRUE(sink.errors[1].contains(QStringLiteral("not a folder")))
        << sink.errors[1].toStdString();
}

TEST_F(MainWindowTest, MissingWeightsKeepThePreviousModelOpen) {
    QKV_REQUIRE_SHARED(shared);
    ASSERT_TRUE(open(modelPath(shared, "gpt2-random-tiny")));
    QTemporaryDir dir;
    ASSERT_TRUE(QFile::copy(modelPath(shared, "gpt2-random-tiny") + "/config.json",
                            QDir(dir.path()).filePath("config.json")));
    window->openModel(dir.path());
    ASSERT_TRUE(waitFor([&] { return !doc().isLoading() && !sink.errors.isEmpty(); }));
    EXPECT_TRUE(sink.errors[0].contains(QStringLiteral("safetensors")))
        << sink.errors[0].toStdString();
    ASSERT_NE(doc().model(), nullptr);
    EXPECT_EQ(doc().model()->name(), "gpt2-random-tiny");
}

TEST_F(MainWindowTest, VulkanWithoutADeviceGivesADialogAndKeepsComputing) {
    QKV_REQUIRE_SHARED(shared);
    ASSERT_TRUE(open(modelPath(shared, "gpt2-random-tiny")));
    // Hide every Vulkan driver from the loader, as on a machine without a GPU.
    qputenv("VK_ICD_FILENAMES", "/nonexistent/icd.json");
    qputenv("VK_DRIVER_FILES", "/nonexistent/icd.json");
    doc().setBackendChoice(QStringLiteral("vulkan"));
    ASSERT_TRUE(waitFor([&] {
        return !sink.errors.isEmpty() || doc().backendChoice() == QStringLiteral("vulkan");
    }));
    if (doc().backendChoice() == QStringLiteral("vulkan")) {
        EXPECT_TRUE(window->statusField("backend").startsWith("backend: "));
        GTEST_SKIP() << "the Vulkan loader still found " << doc().backendName().toStdString();
    }
    EXPECT_TRUE(sink.errors[0].contains(QStringLiteral("vulkan"), Qt::CaseInsensitive));
    EXPECT_EQ(doc().backendChoice(), QStringLiteral("auto"));
    EXPECT_TRUE(window->statusField("backend").startsWith("backend: "));
    ASSERT_TRUE(type(QStringLiteral("Still works.")));
    EXPECT_TRUE(doc().snapshot());
}

TEST_F(MainWindowTest, ChoosingVulkanWhereADeviceExistsRunsOnIt) {
    QKV_REQUIRE_SHARED(shared);
    ASSERT_TRUE(open(modelPath(shared, "gpt2-random-tiny")));
    ASSERT_TRUE(type(QStringLiteral("The movie was a box office bomb.")));
    doc().setBackendChoice(QStringLiteral("vulkan"));
    ASSERT_TRUE(waitFor([&] {
        return !sink.errors.isEmpty() || doc().backendChoice() == QStringLiteral("vulkan");
    }));
    if (!sink.errors.isEmpty())
        GTEST_SKIP() << "no Vulkan device: " << sink.errors[0].toStdString();
    ASSERT_TRUE(settle());
    EXPECT_TRUE(window->statusField("backend").contains(QStringLiteral("vulkan")));
    EXPECT_EQ(doc().snapshot()->backend, doc().backendName());
}

TEST_F(MainWindowTest, ChoosingCpuIsShownInTheStatusBar) {
    QKV_REQUIRE_SHARED(shared);
    ASSERT_TRUE(open(modelPath(shared, "gpt2-random-tiny")));
    doc().setBackendChoice(QStringLiteral("cpu"));
    ASSERT_TRUE(waitFor([&] { return doc().backendChoice() == QStringLiteral("cpu"); }));
    EXPECT_EQ(window->statusField("backend"), QStringLiteral("backend: cpu"));
    EXPECT_TRUE(sink.errors.isEmpty());
}

}  // namespace
}  // namespace qkv::ui::test

namespace qkv::ui::test {
namespace {

// A folder without tokenizer files (the new families' test checkpoints) still opens: without a
// dialog, the sentence box says to type ids after '#', and typed ids give the Hugging Face
// reference's attention.
TEST_F(MainWindowTest, TypedTokenIdsRunAModelWithoutTokenizer) {
    QKV_REQUIRE_SHARED(shared);
    ASSERT_TRUE(open(modelPath(shared, "gemma2-random-tiny")));
    EXPECT_TRUE(sink.informations.isEmpty()) << sink.informations.join("; ").toStdString();
    EXPECT_TRUE(window->sentenceBar()->editor()->placeholderText().contains(
        QStringLiteral("#464 3807 373")));
    const auto reference =
        qkv::test::loadReference(shared / "models" / "gemma2-random-tiny" / "hf_reference.json");
    const auto& sentence = reference.sentences[0];
    QString typed = QStringLiteral("#");
    for (int id : sentence.ids) typed += QString::number(id) + u' ';
    ASSERT_TRUE(type(typed));
    ASSERT_TRUE(doc().snapshot() && doc().snapshot()->trace);
    const RowMatrixXf& a = doc().snapshot()->trace->probabilities(1, 3);
    const auto& expected = sentence.results.at("original").attentions[1][3];
    ASSERT_EQ(a.rows(), expected.size);
    for (int i = 0; i < expected.size; ++i)
        for (int j = 0; j < expected.size; ++j)
            EXPECT_NEAR(a(i, j), expected.at(i, j), 1e-4);  // as core's reference test
    EXPECT_EQ(window->tokenChips()->chipTexts().size(),
              static_cast<qsizetype>(sentence.ids.size()));

    QString failure;
    QObject::connect(&doc(), &LabDocument::computeFailed, window.get(),
                     [&](const QString& message) { failure = message; });
    doc().setText(QStringLiteral("#2 x 5"));
    ASSERT_TRUE(waitFor([&] { return !failure.isEmpty(); }));
    EXPECT_TRUE(failure.contains(QStringLiteral("'x' is not a token id"))) << failure.toStdString();
}

// The weights' numbers need no text: on a model without a tokenizer they show at once — before
// any ids, and while words the model cannot read stand in the box — and they are the core's.
TEST_F(MainWindowTest, AModelWithoutTokenizerShowsItsWeightNumbersBeforeAnyIds) {
    QKV_REQUIRE_SHARED(shared);
    const QString folder = modelPath(shared, "deepseek_v3-random-tiny");
    window->resize(1280, 720);
    ASSERT_TRUE(open(folder));
    window->showTab(MainWindow::Tab::Overview);
    const auto weightsShown = [&] { return doc().metrics() && !doc().snapshot(); };
    for (const QString& text : {QString(), QStringLiteral("words it cannot read")}) {
        SCOPED_TRACE(text.toStdString());
        doc().setText(text);
        ASSERT_TRUE(waitFor(weightsShown));
        EXPECT_TRUE(doc().computeError().isEmpty()) << doc().computeError().toStdString();
        const auto model = Model::open(folder.toStdString());
        const ModelMetrics expected = analyzeModel(*model, {});
        const ModelMetrics& shown = *doc().metrics()->metrics;
        ASSERT_EQ(shown.layers.size(), expected.layers.size());
        EXPECT_EQ(shown.medianLayerWqkSymmetry, expected.medianLayerWqkSymmetry);
        EXPECT_EQ(shown.layers[0].heads[1].wqkRank, expected.layers[0].heads[1].wqkRank);
        EXPECT_FALSE(shown.layers[0].heads[1].scoreSymmetry);  // no sentence, no scores

        OverviewView* overview = window->overviewView();
        overview->setShownMetric(HeadMetric::WqkSymmetry);
        QTest::qWait(50);
        EXPECT_TRUE(overview->heatmap()->isShowingFigure())
            << overview->heatmap()->placeholderText().toStdString();
        EXPECT_EQ(window->weightPanel()->valueText("symmetry"),
                  formatNumber(shown.layers[0].heads[0].wqkSymmetry));
        EXPECT_EQ(window->weightPanel()->valueText("score-symmetry"),
                  QStringLiteral("comes with a sentence"));
        if (text.isEmpty()) keepScreenshot(window.get(), QStringLiteral("weights-before-ids"));
        // The scores' symmetry needs the sentence: the view says what to type.
        overview->setShownMetric(HeadMetric::ScoreSymmetry);
        QTest::qWait(50);
        EXPECT_FALSE(overview->heatmap()->isShowingFigure());
    }
    ASSERT_TRUE(type(QStringLiteral("#1 5 9")));
    ASSERT_TRUE(doc().metrics());
    EXPECT_TRUE(doc().metrics()->metrics->layers[0].heads[0].scoreSymmetry);
    EXPECT_TRUE(window->overviewView()->heatmap()->isShowingFigure());
}

}  // namespace
}  // namespace qkv::ui::test
