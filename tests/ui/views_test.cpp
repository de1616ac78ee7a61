// The Compare and Overview tabs, placeholders, truncation, the empty state and tab shortcuts.
#include <QAction>
#include <QApplication>
#include <QComboBox>
#include <QDir>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFile>
#include <QLineEdit>
#include <QMimeData>
#include <QStackedWidget>
#include <QTemporaryDir>
#include <QUrl>
#include <cmath>

#include "tests/ui/ui_test_support.h"
#include "ui/views/compare_view.h"
#include "ui/views/config_panel.h"
#include "ui/views/head_view.h"
#include "ui/views/heatmap_widget.h"
#include "ui/views/overview_view.h"
#include "ui/views/sentence_bar.h"
#include "ui/views/token_chips.h"
#include "ui/window/empty_state.h"

namespace qkv::ui::test {
namespace {

TEST_F(MainWindowTest, CompareShowsLearnedConfigurationAndDifference) {
    QKV_REQUIRE_SHARED(shared);
    const QString folder = modelPath(shared, "gpt2-random-tiny");
    ASSERT_TRUE(open(folder));
    ASSERT_TRUE(type(kMovie));
    window->configPanel()->presetBox()->setCurrentText(QStringLiteral("tied-kv"));
    ASSERT_TRUE(settle());
    QTest::keyClick(window.get(), Qt::Key_2, Qt::ControlModifier);
    ASSERT_EQ(window->currentTab(), MainWindow::Tab::Compare);
    doc().setHead(1, 2);
    ASSERT_TRUE(settle());

    const HeatmapFigure& figure = window->compareView()->heatmap()->figure();
    ASSERT_EQ(figure.spec().panels.size(), 3u);
    EXPECT_EQ(figure.spec().panels[0].title, QStringLiteral("learned"));
    EXPECT_EQ(figure.spec().panels[1].title, QStringLiteral("tied-kv"));
    const Reference learned = referenceTrace(folder, kMovie);
    const Reference tied = referenceTrace(folder, kMovie, WConfiguration::parse("tied-kv"));
    const auto& a0 = learned.trace.probabilities(1, 2);
    const auto& a1 = tied.trace.probabilities(1, 2);
    for (int i = 0; i < a0.rows(); ++i)
        for (int j = 0; j <= i; ++j) {
            EXPECT_NEAR(figure.shownValue({0, i, j}), a0(i, j), 1e-6);
            EXPECT_NEAR(figure.shownValue({1, i, j}), a1(i, j), 1e-6);
            EXPECT_NEAR(figure.shownValue({2, i, j}), a1(i, j) - a0(i, j), 1e-6);
        }
}

TEST_F(MainWindowTest, OverviewColoursHeadsAndOpensTheClickedOne) {
    QKV_REQUIRE_SHARED(shared);
    ASSERT_TRUE(open(modelPath(shared, "stories260K")));
    ASSERT_TRUE(type(kMovie));
    QTest::keyClick(window.get(), Qt::Key_3, Qt::ControlModifier);
    ASSERT_EQ(window->currentTab(), MainWindow::Tab::Overview);
    OverviewView* overview = window->overviewView();
    HeatmapWidget* heatmap = overview->heatmap();
    ASSERT_TRUE(heatmap->isShowingFigure());
    const ModelMetrics& m = *doc().metrics()->metrics;
    const HeatmapData& grid = heatmap->figure().spec().panels.at(0).data;
    ASSERT_EQ(grid.rows, 5);
    ASSERT_EQ(grid.cols, 8);
    for (int l = 0; l < 5; ++l)
        for (int h = 0; h < 8; ++h)
            EXPECT_DOUBLE_EQ(heatmap->figure().shownValue({0, l, h}),
                             m.layers[l].heads[h].wqkSymmetry);

    overview->setShownMetric(HeadMetric::ScoreSymmetry);
    const HeatmapData& scores = heatmap->figure().spec().panels.at(0).data;
    EXPECT_DOUBLE_EQ(scores.at(2, 3), *m.layers[2].heads[3].scoreSymmetry);

    const QPoint cell = heatmap->figure().cellCenter({0, 2, 3});
    QTest::mouseMove(heatmap->plot(), cell);
    EXPECT_TRUE(heatmap->lastToolTip().contains(QStringLiteral("Layer 2 · Head 3")));
    QTest::mouseClick(heatmap->plot(), Qt::LeftButton, {}, cell);
    EXPECT_EQ(doc().layer(), 2);
    EXPECT_EQ(doc().head(), 3);
    EXPECT_EQ(window->currentTab(), MainWindow::Tab::Head);
}

TEST_F(MainWindowTest, EmptySentenceShowsAFriendlyPlaceholder) {
    QKV_REQUIRE_SHARED(shared);
    ASSERT_TRUE(open(modelPath(shared, "gpt2-random-tiny")));
    ASSERT_TRUE(type(kMovie));
    window->sentenceBar()->editor()->clear();
    ASSERT_TRUE(settle());
    EXPECT_FALSE(window->headView()->heatmap()->isShowingFigure());
    EXPECT_TRUE(window->headView()->heatmap()->placeholderText().contains(
        QStringLiteral("Type a sentence")));
    EXPECT_TRUE(window->tokenChips()->chipTexts().isEmpty());
    EXPECT_TRUE(sink.errors.isEmpty());
}

TEST_F(MainWindowTest, LongSentenceIsCutVisiblyToTheContext) {
    QKV_REQUIRE_SHARED(shared);
    ASSERT_TRUE(open(modelPath(shared, "gpt2-random-tiny")));  // context 128
    QString text;
    for (int i = 0; i < 150; ++i) text += QStringLiteral(" word");
    window->sentenceBar()->editor()->setText(text);
    doc().recompute();
    ASSERT_TRUE(settle());
    ASSERT_TRUE(doc().snapshot());
    EXPECT_EQ(doc().snapshot()->tokens.size(), 128u);
    EXPECT_EQ(doc().snapshot()->truncatedFrom.value_or(0), 150);
    EXPECT_EQ(window->tokenChips()->chipTexts().size(), 128);
    EXPECT_TRUE(window->tokenChips()->noticeText().contains(QStringLiteral("22 were dropped")));
    EXPECT_TRUE(window->statusField("tokens").contains(QStringLiteral("22 dropped")));
}

TEST_F(MainWindowTest, StartsWithAnInvitingEmptyState) {
    auto* pages = window->findChild<QStackedWidget*>();
    ASSERT_NE(pages, nullptr);
    EXPECT_EQ(pages->currentWidget(), window->emptyState());
    EXPECT_EQ(window->statusField("model"), QStringLiteral("no model"));
}

TEST_F(MainWindowTest, StartupOpensTheGivenFolderWithAnExampleSentence) {
    QKV_REQUIRE_SHARED(shared);
    window->startup({modelPath(shared, "gpt2-random-tiny")});
    ASSERT_TRUE(waitFor([&] { return doc().model() != nullptr; }));
    ASSERT_TRUE(settle());
    EXPECT_EQ(doc().text(), exampleSentences().value(0));
    EXPECT_TRUE(window->headView()->heatmap()->isShowingFigure());
    EXPECT_TRUE(window->windowTitle().startsWith(QStringLiteral("gpt2-random-tiny")));
}

TEST_F(MainWindowTest, FirstLaunchOpensTheBundledLearnedModel) {
    QKV_REQUIRE_SHARED(shared);
    QTemporaryDir models;
    ASSERT_TRUE(QFile::link(modelPath(shared, "gpt2-random-tiny"),
                            QDir(models.path()).filePath(QStringLiteral("tiny-learned"))));
    ASSERT_TRUE(QFile::link(modelPath(shared, "gpt2-random-tiny"),
                            QDir(models.path()).filePath(QStringLiteral("tiny-shared-qk"))));
    qputenv("QKV_MODELS_DIR", models.path().toUtf8());
    window = std::make_unique<MainWindow>();  // reads the examples when building its menus
    window->setMessageSink(&sink);
    window->show();
    window->startup({});
    ASSERT_TRUE(waitFor([&] { return doc().model() != nullptr; }));
    ASSERT_TRUE(settle());
    EXPECT_EQ(doc().model()->name(), "tiny-learned");
    EXPECT_TRUE(doc().snapshot());
    QStringList examples;
    for (QAction* action : window->findChildren<QAction*>())
        if (action->text().startsWith(QStringLiteral("tiny-"))) examples << action->text();
    examples.sort();
    EXPECT_EQ(examples,
              (QStringList{QStringLiteral("tiny-learned"), QStringLiteral("tiny-shared-qk")}));
    qunsetenv("QKV_MODELS_DIR");
}

TEST_F(MainWindowTest, DroppingAFolderOpensIt) {
    QKV_REQUIRE_SHARED(shared);
    QMimeData mime;
    // A file inside the folder counts as the folder.
    mime.setUrls({QUrl::fromLocalFile(modelPath(shared, "gpt2-random-tiny") + "/config.json")});
    QDragEnterEvent enter(QPoint(200, 200), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(window.get(), &enter);
    EXPECT_TRUE(enter.isAccepted());
    QDropEvent drop(QPointF(200, 200), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(window.get(), &drop);
    ASSERT_TRUE(waitFor([&] { return doc().model() != nullptr; }));
    EXPECT_EQ(doc().model()->name(), "gpt2-random-tiny");
}

TEST_F(MainWindowTest, SettingsPersistAcrossWindows) {
    QKV_REQUIRE_SHARED(shared);
    const QString folder = modelPath(shared, "gpt2-random-tiny");
    ASSERT_TRUE(open(folder));
    ASSERT_TRUE(type(kMovie));
    window->configPanel()->presetBox()->setCurrentText(QStringLiteral("single-w"));
    doc().setMode(HeatmapMode::Scores);
    doc().setColorScheme({QStringLiteral("magma"), QStringLiteral("purple-white-green")});
    ASSERT_TRUE(settle());
    window->close();
    window.reset();

    window = std::make_unique<MainWindow>();
    window->setMessageSink(&sink);
    window->show();
    window->startup({});  // reopens the most recent model and sentence
    ASSERT_TRUE(waitFor([&] { return doc().model() != nullptr; }));
    ASSERT_TRUE(settle());
    EXPECT_EQ(QString::fromStdString(doc().model()->folder().string()), folder);
    EXPECT_EQ(window->sentenceBar()->editor()->text(), kMovie);
    EXPECT_EQ(doc().config().name(), "single-w");
    EXPECT_EQ(doc().mode(), HeatmapMode::Scores);
    EXPECT_EQ(doc().colorScheme().sequential, QStringLiteral("magma"));
    EXPECT_EQ(doc().colorScheme().diverging, QStringLiteral("purple-white-green"));
}

// Typed token ids are restored with the model they were typed for, never onto another one
// (where they would read other tokens); the comparison colouring is not restored without a
// comparison.
TEST_F(MainWindowTest, TokenIdsAndTheComparisonColouringAreRestoredOnlyWhereTheyApply) {
    QKV_REQUIRE_SHARED(shared);
    const QString gptOss = modelPath(shared, "gpt_oss-random-tiny");
    const QString gpt2 = modelPath(shared, "gpt2-random-tiny");
    ASSERT_TRUE(open(gptOss));
    ASSERT_TRUE(type(QStringLiteral("#579 371 473 462")));
    window->overviewView()->setShownMetric(HeadMetric::AttentionChange);
    window->close();
    window.reset();

    for (const QString& model : {gptOss, gpt2}) {  // each window saves its sentence on closing
        SCOPED_TRACE(model.toStdString());
        window = std::make_unique<MainWindow>();
        window->setMessageSink(&sink);
        window->show();
        window->startup({model});
        ASSERT_TRUE(waitFor([&] { return doc().model() != nullptr; }));
        ASSERT_TRUE(settle());
        EXPECT_EQ(window->sentenceBar()->editor()->text(), model == gptOss
                                                               ? QStringLiteral("#579 371 473 462")
                                                               : exampleSentences().value(0));
        EXPECT_EQ(window->overviewView()->shownMetric(), HeadMetric::WqkSymmetry);
        window->close();
        window.reset();
    }
}

}  // namespace
}  // namespace qkv::ui::test

namespace qkv::ui::test {
namespace {

// Words of a story, as many as make `tokens` tokens (or one more where a word is two).
QString wordsOfLength(const Model& model, int tokens) {
    const QStringList words =
        QStringLiteral(
            "Once upon a time there was a little girl named Lily who loved to play in the park")
            .split(u' ');
    QString text;
    for (int i = 0; static_cast<int>(model.tokenize(text.toStdString()).size()) < tokens; ++i)
        text += (text.isEmpty() ? QString() : QStringLiteral(" ")) + words[i % words.size()];
    return text;
}

// The Compare tab labels every token on both axes of every panel: up to 20 tokens at a laptop's
// 1280 x 720 (the panels are about 210 pixels there, 10 a token), up to 40 at 1920 x 1080. The
// panels share their rows: only the first names them.
TEST_F(MainWindowTest, CompareLabelsEveryTokenOfASentenceThatFits) {
    QKV_REQUIRE_SHARED(shared);
    ASSERT_TRUE(open(modelPath(shared, "gpt2-random-tiny")));
    window->configPanel()->presetBox()->setCurrentText(QStringLiteral("shared-qk"));
    window->showTab(MainWindow::Tab::Compare);
    for (const auto& [size, labelledUpTo] :
         {std::pair{QSize(1280, 720), 20}, std::pair{QSize(1920, 1080), 40}}) {
        window->resize(size);
        for (int tokens : {8, 20, 40}) {
            SCOPED_TRACE(std::to_string(size.width()) + " wide, " + std::to_string(tokens));
            ASSERT_TRUE(type(wordsOfLength(*doc().model(), tokens)));
            QTest::qWait(50);
            keepScreenshot(window.get(),
                           QStringLiteral("compare-%1-%2").arg(size.width()).arg(tokens));
            const HeatmapFigure& figure = window->compareView()->heatmap()->figure();
            ASSERT_EQ(figure.spec().panels.size(), 3u);
            for (int panel = 0; panel < 3; ++panel) {
                EXPECT_EQ(figure.colorMap(panel)->valueAxis()->tickLabels(), panel == 0);
                if (tokens > labelledUpTo) continue;
                EXPECT_EQ(figure.rowLabelStride(panel), 1) << panel;
                EXPECT_EQ(figure.columnLabelStride(panel), 1) << panel;
            }
        }
    }
}

}  // namespace
}  // namespace qkv::ui::test
