// A hybrid model in the app: Qwen3.5's Gated DeltaNet layers show their implicit attention on a
// diverging scale beside the softmax of its full layers, each layer with its own heads.
#include <QLabel>
#include <QSpinBox>
#include <cmath>

#include "tests/support/reference.h"
#include "tests/ui/ui_test_support.h"
#include "ui/views/head_picker.h"
#include "ui/views/head_view.h"
#include "ui/views/heatmap_widget.h"
#include "ui/views/lines_view.h"
#include "ui/views/overview_view.h"
#include "ui/views/space_view.h"
#include "ui/views/thumbnail_grid.h"
#include "ui/views/weight_panel.h"

namespace qkv::ui::test {
namespace {

class HybridModelTest : public MainWindowTest {
  protected:
    // Opens the shared model `name` at 1280 x 720 on the Head tab with its reference's first
    // sentence typed as ids.
    ::testing::AssertionResult openWithReferenceSentence(const std::filesystem::path& shared,
                                                         const char* name) {
        reference = qkv::test::loadReference(shared / "models" / name / "hf_reference.json");
        QStringList ids;
        for (int id : reference.sentences.front().ids) ids << QString::number(id);
        window->resize(1280, 720);
        if (auto opened = open(modelPath(shared, name)); !opened) return opened;
        window->showTab(MainWindow::Tab::Head);
        return type(QStringLiteral("#") + ids.join(u' '));
    }

    // Shows each tab that draws a model's heads in turn, each given time to draw.
    bool everyViewDraws() {
        for (MainWindow::Tab tab : {MainWindow::Tab::Overview, MainWindow::Tab::Compare,
                                    MainWindow::Tab::Lines, MainWindow::Tab::Head}) {
            window->showTab(tab);
            if (!settle()) return false;
        }
        return true;
    }

    qkv::test::ModelReference reference;
};

TEST_F(HybridModelTest, ALinearLayerShowsItsImplicitAttentionBesideAFullLayer) {
    QKV_REQUIRE_SHARED(shared);
    // qwen3_5mm: layers 0-2 Gated DeltaNet with 2 value heads, layer 3 full attention with 4.
    ASSERT_TRUE(openWithReferenceSentence(shared, "qwen3_5mm-random-tiny"));
    const auto& sentence = reference.sentences.front();

    const qkv::test::ReferenceMatrix& expected =
        sentence.results.at("original").attentions.at(0).at(1);
    doc().setHead(0, 1);
    ASSERT_TRUE(settle());
    HeatmapWidget* heatmap = window->headView()->heatmap();
    ASSERT_TRUE(heatmap->isShowingFigure());
    const FigureSpec& linear = heatmap->figure().spec();
    EXPECT_TRUE(linear.title.contains(QStringLiteral("Gated DeltaNet")))
        << linear.title.toStdString();
    const HeatmapData& map = linear.panels.at(0).data;
    EXPECT_TRUE(map.diverging);
    EXPECT_TRUE(map.scaleLabel.contains(QStringLiteral("implicit attention")));
    EXPECT_EQ(map.low, -map.high);  // centred at zero
    for (int i = 0; i < expected.size; ++i)
        for (int j = 0; j <= i; ++j)  // as ForwardReference: float32 against float64
            EXPECT_NEAR(heatmap->figure().shownValue({0, i, j}), expected.at(i, j), 1e-4);
    // The picker offers the layer's own two heads and says what kind it is.
    EXPECT_EQ(window->headPicker()->headBox()->maximum(), 1);
    keepScreenshot(window.get(), QStringLiteral("hybrid-linear-layer"));

    doc().setHead(3, 3);
    ASSERT_TRUE(settle());
    ASSERT_TRUE(heatmap->isShowingFigure());
    const HeatmapData& softmax = heatmap->figure().spec().panels.at(0).data;
    EXPECT_FALSE(softmax.diverging);
    // Gated attention: each query's mean σ(gate) beside its token, to two decimals.
    EXPECT_TRUE(softmax.rowTitle.contains(QStringLiteral("σ(gate)")));
    const std::vector<double>& gates = sentence.results.at("original").outputGates.at(3).at(3);
    ASSERT_EQ(static_cast<size_t>(softmax.rowLabels.size()), gates.size());
    for (size_t i = 0; i < gates.size(); ++i)
        EXPECT_TRUE(softmax.rowLabels[i].endsWith(QString::number(gates[i], 'f', 2)))
            << softmax.rowLabels[i].toStdString() << " vs " << gates[i];
    EXPECT_EQ(window->headPicker()->headBox()->maximum(), 3);
    keepScreenshot(window.get(), QStringLiteral("hybrid-full-layer"));

    // Stepping through heads crosses from a layer of 2 heads into the next.
    doc().setHead(1, 1);
    doc().stepHead(1);
    EXPECT_EQ(doc().layer(), 2);
    EXPECT_EQ(doc().head(), 0);
}

// Nemotron-H: Mamba-2 heads show their implicit attention M with their skip D, an MLP block (no
// heads) is passed over, and the weight panel names W_C, W_B and W_x.
TEST_F(HybridModelTest, AMambaHeadShowsItsImplicitAttentionAndSkip) {
    QKV_REQUIRE_SHARED(shared);
    // nemotron_h: layers mamba2 (8 heads), moe, mamba2, attention (4 heads), mlp.
    ASSERT_TRUE(openWithReferenceSentence(shared, "nemotron_h-random-tiny"));
    const auto& sentence = reference.sentences.front();

    const auto& original = sentence.results.at("original");
    doc().setHead(2, 5);
    ASSERT_TRUE(settle());
    HeatmapWidget* heatmap = window->headView()->heatmap();
    ASSERT_TRUE(heatmap->isShowingFigure());
    const HeatmapData& map = heatmap->figure().spec().panels.at(0).data;
    EXPECT_TRUE(map.diverging);
    EXPECT_TRUE(map.scaleLabel.contains(QStringLiteral("D = "))) << map.scaleLabel.toStdString();
    const qkv::test::ReferenceMatrix& expected = original.attentions.at(2).at(5);
    for (int i = 0; i < expected.size; ++i)
        for (int j = 0; j <= i; ++j)  // as ForwardReference: float32 against float64
            EXPECT_NEAR(heatmap->figure().shownValue({0, i, j}), expected.at(i, j), 1e-4);
    EXPECT_EQ(window->headPicker()->headBox()->maximum(), 7);
    keepScreenshot(window.get(), QStringLiteral("nemotron-mamba-head"));

    // Layer 1 is a mixture of experts without heads: going down from 0 lands on 2, up from 2
    // on 0.
    doc().setHead(0, 0);
    doc().stepLayer(1);
    EXPECT_EQ(doc().layer(), 2);
    doc().stepLayer(-1);
    EXPECT_EQ(doc().layer(), 0);
    doc().setHead(3, 3);
    doc().stepHead(1);  // past the last attention head: layer 4 has none, so it stays
    EXPECT_EQ(doc().layer(), 3);
    EXPECT_EQ(doc().head(), 3);
    doc().setHead(2, 0);
    doc().stepHead(-1);  // back across the experts' block to layer 0's last head
    EXPECT_EQ(doc().layer(), 0);
    EXPECT_EQ(doc().head(), 7);

    // Every view draws the model whose blocks have 8, 0 or 4 heads.
    ASSERT_TRUE(everyViewDraws());
    window->showTab(MainWindow::Tab::Overview);
    ASSERT_TRUE(settle());
    keepScreenshot(window.get(), QStringLiteral("nemotron-overview"));

    // The Overview's trace metrics of a Mamba head are its implicit map's, by |M_ij|: as a
    // direct computation on the reference's map (float32 against float64: 1e-4).
    window->overviewView()->setShownMetric(HeadMetric::MeanDistance);
    ASSERT_TRUE(settle());
    const auto computed = doc().metrics();
    ASSERT_TRUE(computed);
    const HeadMetrics& head = computed->metrics->layers.at(2).heads.at(5);
    ASSERT_TRUE(head.meanDistance && head.selfShare);
    double distance = 0, self = 0;
    for (int i = 0; i < expected.size; ++i) {
        double total = 0, far = 0;
        for (int j = 0; j <= i; ++j) {
            total += std::abs(expected.at(i, j));
            far += std::abs(expected.at(i, j)) * (i - j);
        }
        distance += far / total / expected.size;
        self += std::abs(expected.at(i, i)) / total / expected.size;
    }
    EXPECT_NEAR(*head.meanDistance, distance, 1e-4);
    EXPECT_NEAR(*head.selfShare, self, 1e-4);
    keepScreenshot(window.get(), QStringLiteral("nemotron-mean-distance"));

    // Thumbnails: each layer its own heads (8, none, 8, 4, none), the Mamba maps signed.
    OverviewView* overview = window->overviewView();
    overview->setShowsThumbnails(true);
    ASSERT_TRUE(settle());
    ThumbnailGrid* grid = overview->thumbnails();
    ASSERT_FALSE(grid->isEmpty());
    grid->resize(900, 600);
    keepScreenshot(window.get(), QStringLiteral("nemotron-thumbnails"));
    QTest::mouseClick(grid, Qt::LeftButton, {}, grid->headCenter(3, 2));
    EXPECT_EQ(doc().layer(), 3);
    EXPECT_EQ(doc().head(), 2);
    overview->setShowsThumbnails(false);
}

// LFM2: a short convolution has no heads; selecting one, the Head view draws its band (each
// channel's taps, signed) and the views of one head say why they have nothing to show. Falcon-H1:
// each layer's attention heads with the Mamba-2 heads beside them, its layers named by both
// kinds. Every view draws both.
TEST_F(HybridModelTest, AShortConvolutionShowsItsBandAndFalconLayersShowTheirAttention) {
    QKV_REQUIRE_SHARED(shared);
    // lfm2: conv, conv, attention, conv, attention.
    ASSERT_TRUE(openWithReferenceSentence(shared, "lfm2-random-tiny"));
    EXPECT_EQ(doc().layer(), 2);  // it opens on its first attention layer
    doc().setHead(2, 3);
    doc().stepLayer(1);
    EXPECT_EQ(doc().layer(), 3);
    EXPECT_EQ(doc().head(), 0);  // the band is the layer's one entry
    EXPECT_EQ(window->headPicker()->headBox()->maximum(), 0);
    ASSERT_TRUE(settle());
    HeatmapWidget* band = window->headView()->heatmap();
    ASSERT_TRUE(band->isShowingFigure()) << band->placeholderText().toStdString();
    const FigureSpec& bandSpec = band->figure().spec();
    EXPECT_TRUE(bandSpec.title.contains(QStringLiteral("short convolution")))
        << bandSpec.title.toStdString();
    const HeatmapData& taps = bandSpec.panels.at(0).data;
    EXPECT_TRUE(taps.diverging);
    const auto& expectedTaps = reference.sentences.front().results.at("original").taps.at(3);
    ASSERT_EQ(taps.rows, static_cast<int>(expectedTaps.size()));
    ASSERT_EQ(taps.cols, static_cast<int>(expectedTaps.front().size()));
    for (int c = 0; c < taps.rows; ++c)  // as ForwardReference: 7 significant digits
        for (int k = 0; k < taps.cols; ++k)
            EXPECT_NEAR(band->figure().shownValue({0, c, k}), expectedTaps[c][k], 1e-6);
    EXPECT_EQ(taps.colLabels.back(), QStringLiteral("t"));
    EXPECT_EQ(window->weightPanel()->valueText("parameters"), QStringLiteral("—"));
    keepScreenshot(window.get(), QStringLiteral("lfm2-conv-band"));
    // The views of one head: a sentence saying why, never a crash.
    window->showTab(MainWindow::Tab::Space);
    ASSERT_TRUE(settle());
    EXPECT_TRUE(window->spaceView()->placeholderText().contains(QStringLiteral("no heads")));
    window->showTab(MainWindow::Tab::Lines);
    ASSERT_TRUE(settle());
    EXPECT_TRUE(window->linesView()->status().contains(QStringLiteral("no heads")));
    window->showTab(MainWindow::Tab::Neurons);
    ASSERT_TRUE(settle());
    ASSERT_TRUE(everyViewDraws());
    window->showTab(MainWindow::Tab::Compare);
    ASSERT_TRUE(settle());
    EXPECT_FALSE(window->currentHeatmap()->isShowingFigure());
    doc().stepHead(1);  // past the band: the next layer's first head
    EXPECT_EQ(doc().layer(), 4);
    EXPECT_EQ(doc().head(), 0);
    doc().stepLayer(-1);
    EXPECT_EQ(doc().layer(), 3);
    doc().setHead(2, 0);
    ASSERT_TRUE(everyViewDraws());
    window->showTab(MainWindow::Tab::Overview);
    ASSERT_TRUE(settle());
    // The grid is as wide as the attention layers' heads, although layer 0 has none.
    const HeatmapFigure& overview = window->overviewView()->heatmap()->figure();
    EXPECT_EQ(overview.spec().panels.at(0).data.cols, 4);
    EXPECT_TRUE(std::isnan(overview.shownValue({0, 0, 0})));
    EXPECT_FALSE(std::isnan(overview.shownValue({0, 2, 0})));
    keepScreenshot(window.get(), QStringLiteral("lfm2-overview"));

    ASSERT_TRUE(openWithReferenceSentence(shared, "falcon_h1-random-tiny"));
    doc().setHead(1, 2);
    ASSERT_TRUE(settle());
    HeatmapWidget* heatmap = window->headView()->heatmap();
    ASSERT_TRUE(heatmap->isShowingFigure());
    const qkv::test::ReferenceMatrix& expected =
        reference.sentences.front().results.at("original").attentions.at(1).at(2);
    for (int i = 0; i < expected.size; ++i)
        for (int j = 0; j <= i; ++j)  // as ForwardReference: float32 against float64
            EXPECT_NEAR(heatmap->figure().shownValue({0, i, j}), expected.at(i, j), 1e-4);
    EXPECT_EQ(window->headPicker()->headBox()->maximum(), 3);
    // Beside the attention head, the Mamba-2 heads dealt to it (2, 2 + 4, …), each its implicit
    // map with its skip.
    const FigureSpec& spec = heatmap->figure().spec();
    const auto& beside = reference.sentences.front().results.at("original").besideAttentions.at(1);
    ASSERT_GT(beside.size(), 2u);
    ASSERT_EQ(spec.panels.size(), 1 + (beside.size() - 2 + 3) / 4);
    for (size_t panel = 1; panel < spec.panels.size(); ++panel) {
        const size_t m = 2 + 4 * (panel - 1);
        EXPECT_EQ(spec.panels[panel].title, QStringLiteral("Mamba-2 head %1 (beside)").arg(m));
        EXPECT_TRUE(spec.panels[panel].data.scaleLabel.contains(QStringLiteral("D = ")));
        for (int i = 0; i < beside[m].size; ++i)
            for (int j = 0; j <= i; ++j)
                EXPECT_NEAR(heatmap->figure().shownValue({static_cast<int>(panel), i, j}),
                            beside[m].at(i, j), 1e-4);
    }
    keepScreenshot(window.get(), QStringLiteral("falcon-attention-head"));
    ASSERT_TRUE(everyViewDraws());
}

}  // namespace
}  // namespace qkv::ui::test
