// What a mask hides, in the app, on Llama 4 (chunks of 4 on layers 0-2, layer 3 global NoPE):
// the Head view's "What the mask hides" puts the dense counterfactual beside the attention, each
// row labelled with its dropped mass; the Overview colours heads by their mean dropped mass.
#include <QCheckBox>
#include <QComboBox>
#include <QListView>
#include <cmath>

#include "core/analysis/hidden_keys.h"
#include "tests/support/reference.h"
#include "tests/ui/ui_test_support.h"
#include "ui/views/head_view.h"
#include "ui/views/heatmap_widget.h"
#include "ui/views/overview_view.h"

namespace qkv::ui::test {
namespace {

using HiddenKeysViewTest = MainWindowTest;

TEST_F(HiddenKeysViewTest, TheCounterfactualStandsBesideTheAttentionAndTheOverviewShowsDrops) {
    QKV_REQUIRE_SHARED(shared);
    const auto reference =
        qkv::test::loadReference(shared / "models" / "llama4-random-tiny" / "hf_reference.json");
    QStringList ids;
    for (int id : reference.sentences.front().ids) ids << QString::number(id);
    window->resize(1280, 720);
    ASSERT_TRUE(open(modelPath(shared, "llama4-random-tiny")));
    window->showTab(MainWindow::Tab::Head);
    ASSERT_TRUE(type(QStringLiteral("#") + ids.join(u' ')));
    doc().setHead(1, 2);
    ASSERT_TRUE(settle());
    HeadView* view = window->headView();
    HeatmapWidget* heatmap = view->heatmap();
    ASSERT_TRUE(heatmap->isShowingFigure());
    EXPECT_EQ(heatmap->figure().spec().panels.size(), 1u) << "off until asked";
    ASSERT_TRUE(view->hiddenToggle()->isEnabled());
    view->hiddenToggle()->setChecked(true);
    ASSERT_TRUE(settle());
    const FigureSpec& spec = heatmap->figure().spec();
    ASSERT_EQ(spec.panels.size(), 2u);
    const HeatmapData& dense = spec.panels.at(1).data;
    EXPECT_TRUE(dense.scaleLabel.contains(QStringLiteral("counterfactual")));
    EXPECT_TRUE(dense.rowTitle.contains(QStringLiteral("drops")));

    const AttentionTrace& trace = *doc().snapshot()->trace;
    const KeyMask mask = doc().shownMask(1);
    ASSERT_EQ(mask.chunk, 4);
    const HiddenKeys expected =
        whatTheMaskHides(trace.scores(1, 2), trace.probabilities(1, 2), mask, false, false);
    const int n = trace.tokens();
    for (int i = 0; i < n; ++i) {
        for (int j = 0; j <= i; ++j) {
            EXPECT_NEAR(heatmap->figure().shownValue({1, i, j}), expected.dense(i, j), 1e-7);
            // The model's own panel greys what the chunk hides.
            EXPECT_EQ(std::isnan(heatmap->figure().shownValue({0, i, j})), mask.hides(i, j))
                << i << "," << j;
        }
        if (i + 1 <
            n)  // later tokens stay hidden: a counterfactual without the mask, not causality
            EXPECT_TRUE(std::isnan(heatmap->figure().shownValue({1, i, i + 1})));
        EXPECT_TRUE(dense.rowLabels.at(i).endsWith(
            QStringLiteral(" %1").arg(expected.dropped[i], 0, 'f', 2)))
            << dense.rowLabels.at(i).toStdString();
    }
    EXPECT_EQ(expected.dropped[0], 0.0);
    EXPECT_GT(expected.dropped[n - 1], 0.0);
    keepScreenshot(window.get(), QStringLiteral("llama4-what-the-mask-hides"));

    // The global NoPE layer hides nothing: the toggle has nothing to show there.
    doc().setHead(3, 0);
    ASSERT_TRUE(settle());
    EXPECT_FALSE(view->hiddenToggle()->isEnabled());
    EXPECT_EQ(heatmap->figure().spec().panels.size(), 1u);

    auto* metrics = window->overviewView()->findChild<QComboBox*>();
    ASSERT_NE(metrics, nullptr);
    const int droppedRow = metrics->findData(QStringLiteral("dropped-mass"));
    ASSERT_GE(droppedRow, 0);
    window->showTab(MainWindow::Tab::Overview);
    ASSERT_TRUE(settle());
    auto* list = qobject_cast<QListView*>(metrics->view());
    ASSERT_NE(list, nullptr);
    EXPECT_FALSE(list->isRowHidden(droppedRow));
    window->overviewView()->setShownMetric(HeadMetric::DroppedMass);
    ASSERT_TRUE(settle());
    const HeatmapFigure& overview = window->overviewView()->heatmap()->figure();
    double mean = 0;
    for (double d : expected.dropped) mean += d;
    mean /= n;
    EXPECT_NEAR(overview.shownValue({0, 1, 2}), mean, 1e-9);
    EXPECT_TRUE(std::isnan(overview.shownValue({0, 3, 0}))) << "a global layer drops nothing";
    const QStringList& rows = overview.spec().panels.at(0).data.rowLabels;
    EXPECT_EQ(rows.at(0), QStringLiteral("L0 chunked"));
    EXPECT_EQ(rows.at(3), QStringLiteral("L3 global NoPE"));
    keepScreenshot(window.get(), QStringLiteral("llama4-dropped-mass-overview"));
}

// DeepSeek-V3.2: the indexer's choice hides keys per query. The model's panel greys the keys it
// did not keep; the counterfactual spreads the same scores over every causal key.
TEST_F(HiddenKeysViewTest, ASparseHeadShowsWhatItsIndexerDropped) {
    QKV_REQUIRE_SHARED(shared);
    const auto reference = qkv::test::loadReference(shared / "models" / "deepseek_v32-random-tiny" /
                                                    "hf_reference.json");
    QStringList ids;
    for (int id : reference.sentences.front().ids) ids << QString::number(id);
    window->resize(1280, 720);
    ASSERT_TRUE(open(modelPath(shared, "deepseek_v32-random-tiny")));
    window->showTab(MainWindow::Tab::Head);
    ASSERT_TRUE(type(QStringLiteral("#") + ids.join(u' ')));
    doc().setHead(0, 1);
    ASSERT_TRUE(settle());
    HeadView* view = window->headView();
    ASSERT_TRUE(view->hiddenToggle()->isEnabled());
    view->hiddenToggle()->setChecked(true);
    ASSERT_TRUE(settle());
    HeatmapWidget* heatmap = view->heatmap();
    ASSERT_EQ(heatmap->figure().spec().panels.size(), 2u);
    const HeatmapData& dense = heatmap->figure().spec().panels.at(1).data;

    const AttentionTrace& trace = *doc().snapshot()->trace;
    const std::vector<std::vector<int>>* kept = selectedKeys(trace, 0);
    ASSERT_NE(kept, nullptr);
    EXPECT_EQ(*kept, reference.sentences.front().results.at("original").selectedKeys.at(0));
    const HiddenKeys expected = whatTheMaskHides(trace.scores(0, 1), trace.probabilities(0, 1),
                                                 doc().shownMask(0), false, false, kept);
    const int n = trace.tokens();
    for (int i = 0; i < n; ++i) {
        for (int j = 0; j <= i; ++j) {
            EXPECT_NEAR(heatmap->figure().shownValue({1, i, j}), expected.dense(i, j), 1e-7);
            const bool keptKey = std::binary_search((*kept)[i].begin(), (*kept)[i].end(), j);
            EXPECT_EQ(std::isnan(heatmap->figure().shownValue({0, i, j})), !keptKey)
                << i << "," << j;
        }
        EXPECT_TRUE(dense.rowLabels.at(i).endsWith(
            QStringLiteral(" %1").arg(expected.dropped[i], 0, 'f', 2)));
    }
    EXPECT_EQ(expected.dropped[3], 0.0) << "the first four queries keep every key (top 4)";
    EXPECT_GT(expected.dropped[n - 1], 0.0);
    const std::optional<double> agreement = indexerAgreement(trace.scores(0, 1), *kept);
    ASSERT_TRUE(agreement.has_value());
    keepScreenshot(window.get(), QStringLiteral("deepseek-v32-what-the-indexer-hides"));

    // The Overview colours every head by how far its indexer's keys are its own top keys.
    auto* metrics = window->overviewView()->findChild<QComboBox*>();
    ASSERT_NE(metrics, nullptr);
    const int agreementRow = metrics->findData(QStringLiteral("indexer-agreement"));
    ASSERT_GE(agreementRow, 0);
    window->showTab(MainWindow::Tab::Overview);
    ASSERT_TRUE(settle());
    auto* list = qobject_cast<QListView*>(metrics->view());
    ASSERT_NE(list, nullptr);
    EXPECT_FALSE(list->isRowHidden(agreementRow));
    window->overviewView()->setShownMetric(HeadMetric::IndexerAgreement);
    ASSERT_TRUE(settle());
    const HeatmapFigure& overview = window->overviewView()->heatmap()->figure();
    EXPECT_NEAR(overview.shownValue({0, 0, 1}), *agreement, 1e-9);
    EXPECT_GT(*agreement, 0.0);
    EXPECT_LE(*agreement, 1.0);
    EXPECT_EQ(overview.spec().panels.at(0).data.rowLabels.at(0), QStringLiteral("L0 sparse"));
    keepScreenshot(window.get(), QStringLiteral("deepseek-v32-indexer-agreement-overview"));
}

}  // namespace
}  // namespace qkv::ui::test
