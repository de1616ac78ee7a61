// The Head tab against the core: the heatmap's cells are the core's attention, shared-qk makes
// S - S^T vanish, the layer/head pickers and keyboard move through heads, hover and click work.
#include "ui/views/head_view.h"

#include <qcustomplot.h>

#include <QAbstractButton>
#include <QComboBox>
#include <QLineEdit>
#include <QRegularExpression>
#include <QSpinBox>
#include <QToolTip>
#include <cmath>

#include "core/analysis/head_metrics.h"
#include "tests/ui/ui_test_support.h"
#include "ui/views/cell_tooltip.h"
#include "ui/views/config_panel.h"
#include "ui/views/head_picker.h"
#include "ui/views/heatmap_widget.h"
#include "ui/views/sentence_bar.h"
#include "ui/views/token_chips.h"
#include "ui/views/weight_panel.h"

namespace qkv::ui::test {
namespace {

HeatmapFigure& headFigure(MainWindow& w) { return w.headView()->heatmap()->figure(); }

TEST_F(MainWindowTest, HeadViewShowsTheCoresAttention) {
    QKV_REQUIRE_SHARED(shared);
    const QString folder = modelPath(shared, "gpt2-random-tiny");
    ASSERT_TRUE(open(folder));
    ASSERT_TRUE(type(kMovie));

    const Reference ref = referenceTrace(folder, kMovie);
    const int n = static_cast<int>(ref.tokens.size());
    ASSERT_EQ(window->tokenChips()->chipTexts().size(), n);
    EXPECT_EQ(window->tokenChips()->chipTexts().at(1), QStringLiteral("movie"));

    const HeatmapFigure& figure = headFigure(*window);
    ASSERT_TRUE(window->headView()->heatmap()->isShowingFigure());
    EXPECT_EQ(figure.spec().title, QStringLiteral("Layer 0 · Head 0 · learned · attention"));
    ASSERT_EQ(figure.spec().panels.at(0).data.rows, n);
    const auto& a = ref.trace.probabilities(0, 0);
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) {
            const double shown = figure.shownValue({0, i, j});
            if (j > i)
                EXPECT_TRUE(std::isnan(shown)) << "causally masked cell " << i << "," << j;
            else
                EXPECT_NEAR(shown, a(i, j), 1e-6) << "cell " << i << "," << j;
        }
    EXPECT_EQ(window->statusField("tokens"), QStringLiteral("%1 tokens").arg(n));
    EXPECT_TRUE(window->statusField("backend").startsWith("backend: cpu"));
    EXPECT_TRUE(window->statusField("time").startsWith("computed in"));
}

TEST_F(MainWindowTest, SharedQkMakesTheAsymmetryViewZero) {
    QKV_REQUIRE_SHARED(shared);
    ASSERT_TRUE(open(modelPath(shared, "gpt2-random-tiny")));
    ASSERT_TRUE(type(kMovie));
    window->headPicker()->modeButton(static_cast<int>(HeatmapMode::Asymmetry))->click();
    const HeatmapData learned = headFigure(*window).spec().panels.at(0).data;
    EXPECT_GT(maxAbsValue(learned), 1e-3) << "learned weights give asymmetric scores";

    window->configPanel()->presetBox()->setCurrentText(QStringLiteral("shared-qk"));
    ASSERT_TRUE(settle());
    ASSERT_EQ(doc().snapshot()->config.name(), "shared-qk");
    const HeatmapFigure& figure = headFigure(*window);
    EXPECT_EQ(figure.spec().title, QStringLiteral("Layer 0 · Head 0 · shared-qk · asymmetry"));
    const HeatmapData& data = figure.spec().panels.at(0).data;
    double largestScore = 0;
    const auto& s = doc().snapshot()->trace->scores(0, 0);
    for (int i = 0; i < s.rows(); ++i)
        for (int j = 0; j < s.cols(); ++j)
            largestScore = std::max(largestScore, double(std::abs(s(i, j))));
    for (int i = 0; i < data.rows; ++i)
        for (int j = 0; j < data.cols; ++j)
            EXPECT_NEAR(figure.shownValue({0, i, j}), 0.0, 1e-5 * largestScore);
    // The colour scale stays wide, so float noise is drawn white rather than saturated.
    EXPECT_GE(data.high, 1e-3 * largestScore);
}

TEST_F(MainWindowTest, PickersAndKeyboardMoveThroughLayersAndHeads) {
    QKV_REQUIRE_SHARED(shared);
    const QString folder = modelPath(shared, "stories260K");
    ASSERT_TRUE(open(folder));
    ASSERT_TRUE(type(QStringLiteral("Once upon a time there was a cat.")));
    window->headView()->heatmap()->plot()->setFocus();

    QTest::keyClick(window->headView()->heatmap()->plot(), Qt::Key_Right);
    EXPECT_EQ(doc().head(), 1);
    QTest::keyClick(window->headView()->heatmap()->plot(), Qt::Key_PageDown);
    EXPECT_EQ(doc().layer(), 1);
    EXPECT_EQ(window->headPicker()->layerBox()->value(), 1);
    EXPECT_EQ(window->headPicker()->headBox()->value(), 1);
    EXPECT_EQ(headFigure(*window).spec().title,
              QStringLiteral("Layer 1 · Head 1 · learned · attention"));
    QTest::keyClick(window->headView()->heatmap()->plot(), Qt::Key_Left);
    QTest::keyClick(window->headView()->heatmap()->plot(), Qt::Key_Left);  // wraps to layer 0
    EXPECT_EQ(doc().layer(), 0);
    EXPECT_EQ(doc().head(), 7);
    QTest::keyClick(window->headView()->heatmap()->plot(), Qt::Key_PageUp);  // stays at layer 0
    EXPECT_EQ(doc().layer(), 0);

    window->headPicker()->layerBox()->setValue(4);
    window->headPicker()->headBox()->setValue(3);
    ASSERT_TRUE(settle());
    const Reference ref = referenceTrace(folder, doc().text());
    const auto& a = ref.trace.probabilities(4, 3);
    const HeatmapFigure& figure = headFigure(*window);
    for (int i = 0; i < a.rows(); ++i)
        for (int j = 0; j <= i; ++j) EXPECT_NEAR(figure.shownValue({0, i, j}), a(i, j), 1e-5);

    // The text editor keeps its arrow keys.
    window->sentenceBar()->editor()->setFocus();
    QTest::keyClick(window->sentenceBar()->editor(), Qt::Key_Left);
    EXPECT_EQ(doc().head(), 3);
}

TEST_F(MainWindowTest, HoverShowsAttentionAndBothScores) {
    QKV_REQUIRE_SHARED(shared);
    ASSERT_TRUE(open(modelPath(shared, "gpt2-random-tiny")));
    ASSERT_TRUE(type(kMovie));
    HeatmapWidget* heatmap = window->headView()->heatmap();
    const QPoint center = heatmap->figure().cellCenter({0, 6, 1});
    QTest::mouseMove(heatmap->plot(), center);
    const QString tip = heatmap->lastToolTip();
    const auto& t = *doc().snapshot()->trace;
    EXPECT_TRUE(tip.contains(QStringLiteral("movie"))) << tip.toStdString();
    EXPECT_TRUE(tip.contains(formatNumber(t.probabilities(0, 0)(6, 1)))) << tip.toStdString();
    EXPECT_TRUE(tip.contains(formatNumber(t.scores(0, 0)(6, 1)))) << tip.toStdString();
    EXPECT_TRUE(tip.contains(formatNumber(t.scores(0, 0)(1, 6)))) << tip.toStdString();
}

TEST_F(MainWindowTest, ClickedTokenPairShowsKeyAndValueCosines) {
    QKV_REQUIRE_SHARED(shared);
    ASSERT_TRUE(open(modelPath(shared, "gpt2-random-tiny")));
    ASSERT_TRUE(type(QStringLiteral("The neural network and the social network.")));
    HeatmapWidget* heatmap = window->headView()->heatmap();
    // "social" (5) reads "neural" (1).
    QTest::mouseClick(heatmap->plot(), Qt::LeftButton, {}, heatmap->figure().cellCenter({0, 5, 1}));
    ASSERT_TRUE(doc().tokenPair().has_value());
    EXPECT_EQ(doc().tokenPair()->query, 5);
    EXPECT_EQ(doc().tokenPair()->key, 1);
    const TokenPairSimilarity sim = tokenPairSimilarity(*doc().snapshot()->trace, 0, 0, 5, 1);
    EXPECT_EQ(window->weightPanel()->valueText("key-cosine"), formatNumber(sim.keyCosine));
    EXPECT_EQ(window->weightPanel()->valueText("value-cosine"), formatNumber(sim.valueCosine));

    // Under tied-kv the values are the keys: both cosines agree.
    window->configPanel()->presetBox()->setCurrentText(QStringLiteral("tied-kv"));
    ASSERT_TRUE(settle());
    EXPECT_EQ(window->weightPanel()->valueText("key-cosine"),
              window->weightPanel()->valueText("value-cosine"));
}

TEST_F(MainWindowTest, WeightPanelShowsTheHeadsBilinearForm) {
    QKV_REQUIRE_SHARED(shared);
    ASSERT_TRUE(open(modelPath(shared, "stories260K")));
    ASSERT_TRUE(type(kMovie));
    const HeadMetrics& h = doc().metrics()->metrics->layers.at(0).heads.at(0);
    EXPECT_TRUE(window->weightPanel()->valueText("rank").startsWith(QString::number(h.wqkRank)));
    EXPECT_EQ(window->weightPanel()->valueText("symmetry"), formatNumber(h.wqkSymmetry));
    QString parameters = window->weightPanel()->valueText("parameters");
    parameters.remove(QRegularExpression(QStringLiteral("[,.\\s\u00a0\u202f]")));
    EXPECT_TRUE(parameters.contains(QStringLiteral("1024"))) << "2 * 64 * 8 for stories260K";
    auto* bars = qobject_cast<QCPBars*>(window->weightPanel()->spectrumPlot()->plottable(0));
    ASSERT_NE(bars, nullptr);
    EXPECT_EQ(bars->data()->size(), static_cast<int>(h.wqkSingularValues.size()));

    window->configPanel()->presetBox()->setCurrentText(QStringLiteral("shared-qk"));
    ASSERT_TRUE(settle());
    EXPECT_EQ(window->weightPanel()->valueText("symmetry"), formatNumber(1.0));
    // One W fills both slots: its form W Wᵀ has half the parameters.
    parameters = window->weightPanel()->valueText("parameters");
    EXPECT_TRUE(parameters.contains(QStringLiteral("one W for Q and K")))
        << parameters.toStdString();
    parameters.remove(QRegularExpression(QStringLiteral("[,.\\s\u00a0\u202f]")));
    EXPECT_TRUE(parameters.contains(QStringLiteral("=512(oneW"))) << parameters.toStdString();
}

TEST_F(MainWindowTest, CustomSlotsAndOptionsReachTheComputation) {
    QKV_REQUIRE_SHARED(shared);
    ASSERT_TRUE(open(modelPath(shared, "gpt2-random-tiny")));
    ASSERT_TRUE(type(kMovie));
    ConfigPanel* panel = window->configPanel();
    panel->slotBox(1)->setCurrentIndex(0);  // K <- W_Q
    ASSERT_TRUE(settle());
    EXPECT_EQ(doc().snapshot()->config.name(), "shared-qk");
    EXPECT_EQ(panel->presetBox()->currentText(), QStringLiteral("shared-qk"));
    panel->slotBox(2)->setCurrentIndex(0);  // V <- W_Q
    ASSERT_TRUE(settle());
    EXPECT_EQ(doc().snapshot()->config.name(), "single-w");
    panel->slotBox(0)->setCurrentIndex(2);  // Q <- W_V: no preset
    ASSERT_TRUE(settle());
    EXPECT_EQ(panel->presetBox()->currentText(), QStringLiteral("custom"));
    panel->maskSelfBox()->setChecked(true);
    panel->scaleOutsideBox()->setChecked(true);
    ASSERT_TRUE(settle());
    EXPECT_TRUE(doc().snapshot()->config.maskSelf);
    EXPECT_TRUE(doc().snapshot()->config.scaleOutside);
    EXPECT_TRUE(headFigure(*window).spec().title.contains(QStringLiteral("mask self")));
}

}  // namespace
}  // namespace qkv::ui::test

namespace qkv::ui::test {
namespace {

// Gemma-2's even layers see a sliding window: cells outside it are drawn masked (NaN), like the
// causal ones, not as zero probabilities; odd layers are plainly causal.
TEST_F(MainWindowTest, SlidingWindowCellsAreShownMasked) {
    QKV_REQUIRE_SHARED(shared);
    ASSERT_TRUE(open(modelPath(shared, "gemma2-random-tiny")));
    ASSERT_TRUE(type(QStringLiteral("#2 572 751 258 140 322 353 753 785")));
    constexpr int kWindow = 4;  // the checkpoint's sliding_window
    for (int layer : {0, 1}) {
        doc().setHead(layer, 0);
        ASSERT_TRUE(settle());
        const HeatmapFigure& figure = headFigure(*window);
        const int n = figure.spec().panels.at(0).data.rows;
        ASSERT_EQ(n, 9);
        for (int i = 0; i < n; ++i)
            for (int j = 0; j <= i; ++j)
                EXPECT_EQ(std::isnan(figure.shownValue({0, i, j})), layer == 0 && j <= i - kWindow)
                    << "layer " << layer << " cell " << i << "," << j;
    }
}

}  // namespace
}  // namespace qkv::ui::test
