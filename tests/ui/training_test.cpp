// The Training tab: variants found by name, their logs as curves and a table, and the sentence's
// attention under each variant equal to each variant's own core forward; the empty state; a
// variant that appears while the tab is open; the shipped models when they are there.
#include <qcustomplot.h>

#include <QDir>
#include <QFile>
#include <QLineEdit>
#include <QTemporaryDir>
#include <cmath>

#include "core/util/error.h"
#include "tests/support/fixture_writer.h"
#include "tests/ui/training_fixture.h"
#include "tests/ui/ui_test_support.h"
#include "ui/support/model_locator.h"
#include "ui/training/training_lab.h"
#include "ui/views/heatmap_widget.h"
#include "ui/views/sentence_bar.h"
#include "ui/views/training_table.h"
#include "ui/views/training_view.h"

namespace qkv::ui::test {
namespace {

const QString kSentence = QStringLiteral("The cat sat.");  // 12 byte-level tokens

std::filesystem::path pathOf(const QTemporaryDir& dir, const char* name) {
    return std::filesystem::path(dir.path().toStdString()) / name;
}

QString folderOf(const QTemporaryDir& dir, const char* name) {
    return QString::fromStdString(pathOf(dir, name).string());
}

// Every drawn cell equals the variant's own forward (NaN where causally masked).
void expectCoreAttention(const HeatmapFigure& figure, int panel, const QString& folder,
                         const QString& text, int layer, int head) {
    const Reference ref = referenceTrace(folder, text);
    const auto& a = ref.trace.probabilities(layer, head);
    const HeatmapData& data = figure.spec().panels.at(panel).data;
    ASSERT_EQ(data.rows, a.rows()) << folder.toStdString();
    for (int i = 0; i < a.rows(); ++i)
        for (int j = 0; j < a.cols(); ++j) {
            const double shown = figure.shownValue({panel, i, j});
            if (j > i)
                EXPECT_TRUE(std::isnan(shown));
            else
                EXPECT_NEAR(shown, a(i, j), 1e-6) << folder.toStdString() << " " << i << "," << j;
        }
}

TEST(TrainingRuns, ReadsTheLogAndItsFinalValues) {
    QTemporaryDir dir;
    writeVariantFolder(pathOf(dir, "toy-learned"), {});
    const auto run = readTrainingRun(folderOf(dir, "toy-learned"));
    ASSERT_TRUE(run);
    EXPECT_EQ(run->attention, QStringLiteral("learned"));
    ASSERT_EQ(run->points.size(), 5u);
    EXPECT_EQ(run->points[2].step, 300);
    EXPECT_DOUBLE_EQ(run->points[2].trainLoss, 3.0 / 3 + 0.07);
    EXPECT_DOUBLE_EQ(run->finalValLoss, 2.5 / 5 + 0.07 + 0.05);
    EXPECT_DOUBLE_EQ(run->perplexity, std::exp(run->finalValLoss));
    EXPECT_EQ(run->completedSteps, 500);
    EXPECT_TRUE(run->finished);
    EXPECT_EQ(run->parameters, 10007);

    // Still training: no "final" entry, the last validation stands in.
    writeVariantFolder(pathOf(dir, "toy-tied-kv"), {QStringLiteral("tied-kv"), 3, 2, false});
    const auto partial = readTrainingRun(folderOf(dir, "toy-tied-kv"));
    ASSERT_TRUE(partial);
    EXPECT_FALSE(partial->finished);
    EXPECT_EQ(partial->completedSteps, 200);
    EXPECT_DOUBLE_EQ(partial->finalValLoss, partial->points.back().valLoss);

    EXPECT_FALSE(readTrainingRun(dir.path()));  // no log at all
    QFile broken(QDir(folderOf(dir, "toy-tied-kv")).filePath("training_log.json"));
    ASSERT_TRUE(broken.open(QIODevice::WriteOnly | QIODevice::Truncate));
    broken.write("{\"steps\": [");
    broken.close();
    try {
        readTrainingRun(folderOf(dir, "toy-tied-kv"));
        FAIL() << "a cut-off log was read";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("training_log.json"), std::string::npos) << e.what();
    }
}

TEST(TrainingRuns, FindsTheSiblingVariantsByName) {
    QTemporaryDir dir;
    writeVariantFolder(pathOf(dir, "toy-single-w"), {QStringLiteral("single-w"), 4});
    writeVariantFolder(pathOf(dir, "toy-learned"), {QStringLiteral("learned"), 1});
    writeVariantFolder(pathOf(dir, "toy-shared-qk"), {QStringLiteral("shared-qk"), 2});
    writeVariantFolder(pathOf(dir, "other-tied-kv"), {QStringLiteral("tied-kv"), 3});
    writeVariantFolder(pathOf(dir, "mine"), {QStringLiteral("shared-qk"), 5});
    ::qkv::test::writeTinyGpt2(pathOf(dir, "plain"));

    const VariantFamily family = findVariantFamily(folderOf(dir, "toy-shared-qk"));
    EXPECT_EQ(family.prefix, QStringLiteral("toy"));
    ASSERT_EQ(family.variants.size(), 3u);
    EXPECT_EQ(family.variants[0].name, QStringLiteral("toy-learned"));
    EXPECT_EQ(family.variants[1].tying, QStringLiteral("shared-qk"));
    EXPECT_EQ(family.variants[2].tying, QStringLiteral("single-w"));
    EXPECT_EQ(findVariantFamily(folderOf(dir, "toy-learned")), family);

    const VariantFamily one = findVariantFamily(folderOf(dir, "mine"));
    ASSERT_EQ(one.variants.size(), 1u);
    EXPECT_EQ(one.variants[0].tying, QStringLiteral("shared-qk"));  // from its log
    EXPECT_TRUE(findVariantFamily(folderOf(dir, "plain")).empty());
}

class TrainingTabTest : public MainWindowTest {
  protected:
    void writeToyVariants() {
        writeVariantFolder(pathOf(dir, "toy-learned"), {QStringLiteral("learned"), 1});
        writeVariantFolder(pathOf(dir, "toy-shared-qk"), {QStringLiteral("shared-qk"), 2});
        writeVariantFolder(pathOf(dir, "toy-tied-kv"), {QStringLiteral("tied-kv"), 3, 4, false});
    }
    TrainingView* view() { return window->trainingView(); }
    // Waits until the tab shows the attention of the document's sentence and head.
    ::testing::AssertionResult attentionShown() {
        const bool shown = waitFor([&] {
            const auto a = view()->lab().attention();
            return a && a->text == doc().text() && a->layer == doc().layer() &&
                   a->head == doc().head() && view()->heatmap()->isShowingFigure() &&
                   view()->heatmap()->figure().spec().title.startsWith(
                       QStringLiteral("Layer %1 · Head %2 ").arg(doc().layer()).arg(doc().head()));
        });
        return shown ? ::testing::AssertionSuccess()
                     : ::testing::AssertionFailure()
                           << "no variant attention; placeholder: "
                           << view()->heatmap()->placeholderText().toStdString();
    }
    QTemporaryDir dir;
};

TEST_F(TrainingTabTest, ShowsCurvesTableAndEachVariantsAttention) {
    writeToyVariants();
    ASSERT_TRUE(open(folderOf(dir, "toy-shared-qk")));
    ASSERT_TRUE(type(kSentence));
    QTest::keyClick(window.get(), Qt::Key_4, Qt::ControlModifier);
    ASSERT_EQ(window->currentTab(), MainWindow::Tab::Training);
    ASSERT_TRUE(attentionShown());
    EXPECT_FALSE(view()->isShowingEmptyState());

    // Curves: training (dashed) and validation (solid) per variant, then two legend keys.
    QCustomPlot* plot = view()->lossPlot();
    ASSERT_EQ(plot->graphCount(), 3 * 2 + 2);
    const char* folders[] = {"toy-learned", "toy-shared-qk", "toy-tied-kv"};
    for (int v = 0; v < 3; ++v) {
        const auto run = readTrainingRun(folderOf(dir, folders[v]));
        QCPGraph* train = plot->graph(2 * v);
        QCPGraph* validation = plot->graph(2 * v + 1);
        ASSERT_EQ(validation->data()->size(), static_cast<int>(run->points.size()));
        EXPECT_EQ(train->pen().style(), Qt::DashLine);
        EXPECT_EQ(validation->pen().style(), Qt::SolidLine);
        EXPECT_EQ(validation->name(), run->attention);
        for (int i = 0; i < static_cast<int>(run->points.size()); ++i) {
            EXPECT_EQ(validation->data()->at(i)->key, run->points[i].step);
            EXPECT_DOUBLE_EQ(validation->data()->at(i)->value, run->points[i].valLoss);
            EXPECT_DOUBLE_EQ(train->data()->at(i)->value, run->points[i].trainLoss);
        }
        // Table: the final values.
        const TrainingTable* table = view()->table();
        EXPECT_EQ(table->item(v, TrainingTable::Variant)->text(), run->attention);
        EXPECT_EQ(table->item(v, TrainingTable::ValLoss)->text(),
                  QString::number(run->finalValLoss, 'f', 4));
        EXPECT_EQ(table->item(v, TrainingTable::Perplexity)->text(),
                  QString::number(run->perplexity, 'f', 3));
        EXPECT_EQ(table->item(v, TrainingTable::TrainLoss)->text(),
                  QString::number(run->finalTrainLoss, 'f', 4));
    }
    EXPECT_EQ(view()->table()->rowCount(), 3);
    EXPECT_EQ(view()->table()->item(2, TrainingTable::Steps)->text(), QStringLiteral("400 / 400"));

    // Heatmaps: each variant's own forward, on one colour scale.
    const HeatmapFigure& figure = view()->heatmap()->figure();
    ASSERT_EQ(figure.spec().panels.size(), 3u);
    EXPECT_EQ(figure.spec().columns, 2);
    for (int v = 0; v < 3; ++v) {
        EXPECT_EQ(figure.spec().panels[v].title,
                  readTrainingRun(folderOf(dir, folders[v]))->attention);
        expectCoreAttention(figure, v, folderOf(dir, folders[v]), kSentence, 0, 0);
    }

    doc().setHead(1, 3);
    ASSERT_TRUE(attentionShown());
    for (int v = 0; v < 3; ++v)
        expectCoreAttention(view()->heatmap()->figure(), v, folderOf(dir, folders[v]), kSentence, 1,
                            3);
    EXPECT_TRUE(sink.errors.isEmpty());
}

TEST_F(TrainingTabTest, AModelWithoutRunsExplainsHowToMakeThem) {
    ::qkv::test::writeTinyGpt2(pathOf(dir, "plain"));
    ASSERT_TRUE(open(folderOf(dir, "plain")));
    window->showTab(MainWindow::Tab::Training);
    EXPECT_TRUE(view()->isShowingEmptyState());
    EXPECT_TRUE(view()->emptyStateText().contains(QStringLiteral("qkvlab-cli train")));
    EXPECT_TRUE(view()->emptyStateText().contains(QStringLiteral("plain")));
    EXPECT_FALSE(view()->heatmap()->isShowingFigure());
}

TEST_F(TrainingTabTest, LongSentenceIsCutVisiblyUnderEveryVariant) {
    writeToyVariants();
    ASSERT_TRUE(open(folderOf(dir, "toy-learned")));
    window->showTab(MainWindow::Tab::Training);
    const QString text = QStringLiteral("The cat sat on the mat.");  // 23 tokens, context 16
    window->sentenceBar()->editor()->setText(text);
    doc().recompute();
    ASSERT_TRUE(settle());
    ASSERT_TRUE(attentionShown());
    EXPECT_TRUE(view()->noticeText().contains(QStringLiteral("the last 7 are dropped")))
        << view()->noticeText().toStdString();
    const auto& panels = view()->heatmap()->figure().spec().panels;
    ASSERT_EQ(panels.size(), 3u);
    EXPECT_EQ(panels[0].title, QStringLiteral("learned · first 16 of 23 tokens"));
    EXPECT_EQ(panels[0].data.rows, 16);
    EXPECT_TRUE(window->statusField("tokens").contains(QStringLiteral("7 dropped")));
}

TEST_F(TrainingTabTest, AVariantWrittenWhileTheTabIsOpenAppears) {
    writeToyVariants();
    ASSERT_TRUE(open(folderOf(dir, "toy-learned")));
    ASSERT_TRUE(type(kSentence));
    window->showTab(MainWindow::Tab::Training);
    ASSERT_TRUE(attentionShown());
    ASSERT_EQ(view()->table()->rowCount(), 3);
    writeVariantFolder(pathOf(dir, "toy-single-w"), {QStringLiteral("single-w"), 4});
    ASSERT_TRUE(waitFor(
        [&] {
            return view()->table()->rowCount() == 4 &&
                   view()->heatmap()->figure().spec().panels.size() == 4;
        },
        10000))
        << "the new variant was not picked up";
    expectCoreAttention(view()->heatmap()->figure(), 3, folderOf(dir, "toy-single-w"), kSentence, 0,
                        0);
}

TEST_F(TrainingTabTest, ShippedVariantsMatchTheirLogsAndTheirCore) {
    std::vector<ExampleModel> shipped;
    for (const ExampleModel& m : exampleModels())
        if (m.name.startsWith(QStringLiteral("qkv-stories-"))) shipped.push_back(m);
    if (shipped.size() < 2)
        GTEST_SKIP() << "fewer than two shipped qkv-stories variants in resources/models "
                        "(scripts/train-defaults.sh makes them)";
    const auto learned = defaultModel();
    ASSERT_TRUE(learned);
    ASSERT_TRUE(open(*learned));
    const QString text = QStringLiteral("Tom gave his red kite to Lily.");
    ASSERT_TRUE(type(text));
    window->showTab(MainWindow::Tab::Training);
    doc().setHead(2, 1);
    ASSERT_TRUE(attentionShown());
    const auto& variants = view()->lab().variants();
    ASSERT_EQ(variants.size(), shipped.size());
    const HeatmapFigure& figure = view()->heatmap()->figure();
    for (int v = 0; v < static_cast<int>(variants.size()); ++v) {
        ASSERT_TRUE(variants[v].run) << variants[v].variant.name.toStdString();
        EXPECT_EQ(view()->table()->item(v, TrainingTable::ValLoss)->text(),
                  QString::number(variants[v].run->finalValLoss, 'f', 4));
        expectCoreAttention(figure, v, variants[v].variant.folder, text, 2, 1);
    }
}

}  // namespace
}  // namespace qkv::ui::test
