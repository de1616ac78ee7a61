// The Neurons, Q·K space and Lines tabs on a shared model: what each shows is the core's
// decomposition of the head the document shows, hover and head choice behave, and each exports.
#include <qcustomplot.h>

#include <QComboBox>
#include <QFile>
#include <QImage>
#include <QLabel>
#include <QListView>
#include <QRegularExpression>
#include <QStandardItemModel>
#include <QTemporaryDir>

#include "core/analysis/head_vectors.h"
#include "tests/support/fixture_writer.h"
#include "tests/ui/ui_test_support.h"
#include "ui/export/figure_provenance_reader.h"
#include "ui/plot/color_maps.h"
#include "ui/plot/metric_matrices.h"
#include "ui/views/cell_tooltip.h"
#include "ui/views/compare_view.h"
#include "ui/views/config_panel.h"
#include "ui/views/head_view.h"
#include "ui/views/heatmap_widget.h"
#include "ui/views/lines_view.h"
#include "ui/views/neuron_view.h"
#include "ui/views/overview_view.h"
#include "ui/views/sentence_bar.h"
#include "ui/views/space_view.h"
#include "ui/views/thumbnail_grid.h"
#include "ui/views/token_chips.h"
#include "ui/views/weight_panel.h"
#include "ui/window/recent_models.h"

namespace qkv::ui::test {
namespace {

TEST_F(MainWindowTest, NeuronsTakeTheChosenRowApart) {
    QKV_REQUIRE_SHARED(shared);
    ASSERT_TRUE(open(modelPath(shared, "gpt2-random-tiny")));
    ASSERT_TRUE(type(kMovie));
    doc().setHead(1, 2);
    QTest::keyClick(window.get(), Qt::Key_5, Qt::ControlModifier);
    ASSERT_EQ(window->currentTab(), MainWindow::Tab::Neurons);
    ASSERT_TRUE(settle());
    NeuronView* view = window->neuronView();
    ASSERT_TRUE(view->heatmap()->isShowingFigure());
    const AttentionTrace& trace = *doc().snapshot()->trace;
    const int n = trace.tokens();
    EXPECT_EQ(view->queryToken(), n - 1);  // the last token until one is chosen
    // Clicking a heatmap cell elsewhere picks its query row here.
    doc().setTokenPair(TokenPair{2, 1});
    ASSERT_TRUE(settle());
    ASSERT_EQ(view->queryToken(), 2);
    const HeatmapFigure& figure = view->heatmap()->figure();
    ASSERT_EQ(figure.spec().panels.size(), 6u);
    const RowMatrixXf& a = trace.probabilities(1, 2);
    const auto k = trace.key(1, 2);
    for (int j = 0; j < n; ++j) {
        EXPECT_FLOAT_EQ(figure.shownValue({4, j + 1, 0}), a(2, j));                   // A_2j
        EXPECT_FLOAT_EQ(figure.shownValue({3, j + 1, 0}), trace.scores(1, 2)(2, j));  // S_2j
        EXPECT_FLOAT_EQ(figure.shownValue({0, j + 1, 3}), k(j, 3));  // k_j, dimension 3
    }
    EXPECT_FLOAT_EQ(figure.shownValue({0, 0, 3}), trace.query(1, 2)(2, 3));  // q_2
}

// The Q·K space's labels never cover one another: each sits at a free corner of its point, or
// is left out, and the title then says how many are shown.
TEST_F(MainWindowTest, QueryKeySpaceLabelsDoNotOverlap) {
    QKV_REQUIRE_SHARED(shared);
    ASSERT_TRUE(open(modelPath(shared, "gpt2-random-tiny")));
    ASSERT_TRUE(type(kMovie));
    window->showTab(MainWindow::Tab::Space);
    doc().setConfig(WConfiguration::parse("shared-qk"));  // queries on keys: every label crowded
    ASSERT_TRUE(settle());
    SpaceView* view = window->spaceView();
    ASSERT_TRUE(view->isShowingFigure());
    std::vector<QRectF> boxes;
    for (int i = 0; i < view->plot()->itemCount(); ++i)
        if (auto* text = qobject_cast<QCPItemText*>(view->plot()->item(i)))
            boxes.push_back(
                QRectF(text->topLeft->pixelPosition(), text->bottomRight->pixelPosition()));
    const auto [placed, tokens] = view->labelCount();
    EXPECT_EQ(static_cast<int>(boxes.size()), placed);
    EXPECT_EQ(tokens, 2 * doc().snapshot()->trace->tokens());
    EXPECT_GT(placed, 0);
    keepScreenshot(view, QStringLiteral("qk-space-labels"));
    for (size_t a = 0; a < boxes.size(); ++a)
        for (size_t b = a + 1; b < boxes.size(); ++b)
            EXPECT_FALSE(
                boxes[a].adjusted(1, 1, -1, -1).intersects(boxes[b].adjusted(1, 1, -1, -1)))
                << a << " and " << b;
}

// Pooling reads the example sentences, which a model without a tokenizer cannot: the option is
// off and says why, and even asked for, it never takes the sentence's own views down.
// Under tied-kv only V changes, and V does not enter a layer's scores: the Compare tab says why
// the first layer's difference is zero rather than showing it without a word.
TEST_F(MainWindowTest, CompareSaysWhyTiedKvLeavesTheFirstLayerAlone) {
    QKV_REQUIRE_SHARED(shared);
    ASSERT_TRUE(open(modelPath(shared, "gpt2-random-tiny")));
    ASSERT_TRUE(type(kMovie));
    window->showTab(MainWindow::Tab::Compare);
    doc().setConfig(WConfiguration::parse("tied-kv"));
    ASSERT_TRUE(settle());
    const auto& snapshot = *doc().snapshot();
    ASSERT_TRUE(snapshot.learned);
    // The same scores, computed from another split of the projections: float32 rounding only.
    EXPECT_LT((snapshot.trace->probabilities(0, 0) - snapshot.learned->probabilities(0, 0))
                  .cwiseAbs()
                  .maxCoeff(),
              1e-6);
    EXPECT_TRUE(window->compareView()->hintText().contains(QStringLiteral("cannot change")))
        << window->compareView()->hintText().toStdString();
    doc().setHead(1, 0);
    ASSERT_TRUE(settle());
    EXPECT_TRUE(window->compareView()->hintText().contains(QStringLiteral("layers before it")));
    doc().setConfig(WConfiguration::parse("shared-qk"));
    ASSERT_TRUE(settle());
    EXPECT_TRUE(window->compareView()->hintText().isEmpty());
}

TEST_F(MainWindowTest, PoolingOnAModelWithoutATokenizerLeavesTheViewsWorking) {
    QKV_REQUIRE_SHARED(shared);
    ASSERT_TRUE(open(QString::fromStdString((shared / "models" / "gpt_oss-random-tiny").string())));
    ASSERT_TRUE(type(QStringLiteral("#579 371 473 462")));
    window->showTab(MainWindow::Tab::Space);
    ASSERT_TRUE(settle());
    SpaceView* view = window->spaceView();
    EXPECT_FALSE(view->canPool());
    view->setPooled(true);
    EXPECT_FALSE(view->pooled());
    doc().setPooledSentences(exampleSentences());  // as a restored session might ask
    ASSERT_TRUE(settle());
    EXPECT_TRUE(doc().computeError().isEmpty()) << doc().computeError().toStdString();
    ASSERT_TRUE(doc().snapshot());
    EXPECT_EQ(doc().snapshot()->trace->tokens(), 4);
    EXPECT_TRUE(doc().snapshot()->pooled.empty());
    EXPECT_TRUE(view->isShowingFigure());
}

TEST_F(MainWindowTest, QueryKeySpaceShowsEveryQueryAndKey) {
    QKV_REQUIRE_SHARED(shared);
    ASSERT_TRUE(open(modelPath(shared, "gpt2-random-tiny")));
    ASSERT_TRUE(type(kMovie));
    window->showTab(MainWindow::Tab::Space);
    ASSERT_TRUE(settle());
    SpaceView* view = window->spaceView();
    ASSERT_TRUE(view->isShowingFigure());
    const int n = doc().snapshot()->trace->tokens();
    ASSERT_EQ(view->plot()->plottableCount(), 2);
    ASSERT_EQ(view->cloud(0)->dataCount(), n);
    ASSERT_EQ(view->cloud(1)->dataCount(), n);
    const QueryKeyPlane plane =
        queryKeyPlane(*doc().snapshot()->trace, doc().layer(), doc().head());
    for (int i = 0; i < n; ++i) {
        EXPECT_DOUBLE_EQ(view->cloud(0)->data()->at(i)->key, plane.queries(i, 0));
        EXPECT_DOUBLE_EQ(view->cloud(1)->data()->at(i)->value, plane.keys(i, 1));
    }
    // Shared-QK: the two clouds are one.
    doc().setConfig(WConfiguration::parse("shared-qk"));
    ASSERT_TRUE(settle());
    for (int i = 0; i < n; ++i) {
        EXPECT_NEAR(view->cloud(0)->data()->at(i)->key, view->cloud(1)->data()->at(i)->key, 1e-4);
        EXPECT_NEAR(view->cloud(0)->data()->at(i)->value, view->cloud(1)->data()->at(i)->value,
                    1e-4);
    }
    // Pooled over the example sentences: their vectors join, drawn behind the sentence's own.
    view->setPooled(true);
    ASSERT_TRUE(settle());
    ASSERT_EQ(view->plot()->plottableCount(), 4);
    EXPECT_EQ(view->cloud(0)->dataCount(), n);
    const auto& pooled = doc().snapshot()->pooled;
    ASSERT_EQ(pooled.size(), static_cast<size_t>(exampleSentences().size()));
    int pooledQueries = 0;
    for (const HeadSample& s : pooled) pooledQueries += static_cast<int>(s.queries.rows());
    EXPECT_EQ(qobject_cast<QCPCurve*>(view->plot()->plottable(0))->dataCount(), pooledQueries);
    doc().setHead(1, 1);  // another head: its vectors are pooled anew
    ASSERT_TRUE(settle());
    EXPECT_EQ(doc().snapshot()->pooledHead, 1);
    view->setPooled(false);
    ASSERT_TRUE(settle());
    EXPECT_EQ(view->plot()->plottableCount(), 2);

    QTemporaryDir dir;
    const QString svg = dir.filePath(QStringLiteral("space.svg"));
    ASSERT_TRUE(window->exportCurrentView(svg));
    EXPECT_GT(QFile(svg).size(), 1000);
    const auto provenance = readFigureProvenance(svg);  // what the figure shows, in the file
    ASSERT_TRUE(provenance);
    EXPECT_EQ(provenance->view, "space");
    EXPECT_EQ(provenance->layer, doc().layer());
    EXPECT_EQ(provenance->head, doc().head());
}

TEST_F(MainWindowTest, LinesFollowTheHeadsAndTheHover) {
    QKV_REQUIRE_SHARED(shared);
    ASSERT_TRUE(open(modelPath(shared, "gpt2-random-tiny")));
    ASSERT_TRUE(type(kMovie));
    window->showTab(MainWindow::Tab::Lines);
    ASSERT_TRUE(settle());
    LinesView* view = window->linesView();
    const RowMatrixXf& a = doc().snapshot()->trace->probabilities(doc().layer(), doc().head());
    const int n = static_cast<int>(a.rows());
    // Causal: n(n+1)/2 lines at most, fewer where A_ij is below 1%.
    int visible = 0;
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) visible += a(i, j) > 0.01f ? 1 : 0;
    EXPECT_EQ(view->canvas()->drawnLines(), visible);
    view->canvas()->setHovered(std::pair{1, 0});  // the first key: every query's line into it
    int intoFirst = 0;
    for (int i = 0; i < n; ++i) intoFirst += a(i, 0) > 0.01f ? 1 : 0;
    EXPECT_EQ(view->canvas()->drawnLines(), intoFirst);
    view->canvas()->setHovered(std::nullopt);
    view->setAllHeads(true);
    ASSERT_TRUE(settle());
    EXPECT_GT(view->canvas()->drawnLines(), visible);
    EXPECT_TRUE(view->status().contains(QStringLiteral("H3"))) << view->status().toStdString();

    QTemporaryDir dir;
    for (const char* name : {"lines.png", "lines.svg", "lines.pdf"}) {
        const QString path = dir.filePath(QString::fromLatin1(name));
        ASSERT_TRUE(window->exportCurrentView(path)) << name;
        EXPECT_GT(QFile(path).size(), 500) << name;
        const auto provenance = readFigureProvenance(path);
        ASSERT_TRUE(provenance) << name;
        EXPECT_EQ(provenance->view, "lines") << name;
        EXPECT_FALSE(provenance->ids.empty()) << name;
    }
}

TEST_F(MainWindowTest, OverviewThumbnailsShowEveryHeadAndOpenTheClickedOne) {
    QKV_REQUIRE_SHARED(shared);
    ASSERT_TRUE(open(modelPath(shared, "stories260K")));
    ASSERT_TRUE(type(kMovie));
    window->showTab(MainWindow::Tab::Overview);
    OverviewView* overview = window->overviewView();
    QTest::keyClick(window.get(), Qt::Key_T, Qt::ControlModifier);
    ASSERT_TRUE(overview->showsThumbnails());
    ASSERT_TRUE(settle());
    ThumbnailGrid* grid = overview->thumbnails();
    ASSERT_FALSE(grid->isEmpty());
    grid->resize(900, 600);
    QTest::mouseClick(grid, Qt::LeftButton, {}, grid->headCenter(3, 6));
    EXPECT_EQ(doc().layer(), 3);
    EXPECT_EQ(doc().head(), 6);
    EXPECT_EQ(window->currentTab(), MainWindow::Tab::Head);
    window->showTab(MainWindow::Tab::Overview);
    QTemporaryDir dir;
    const QString png = dir.filePath(QStringLiteral("thumbnails.png"));
    ASSERT_TRUE(window->exportCurrentView(png));
    const QImage image(png);
    EXPECT_EQ(image.width(), 2 * grid->width());  // drawn at 2x
    const auto provenance = readFigureProvenance(png);
    ASSERT_TRUE(provenance);
    EXPECT_EQ(provenance->view, "thumbnails");
    EXPECT_EQ(provenance->model, "stories260K");
    overview->setShowsThumbnails(false);
    EXPECT_TRUE(overview->heatmap()->isVisibleTo(window.get()));
}

// A click on a token chip pins it: its row and column are marked in the heatmaps and its name in
// the Lines tab; a second click unpins it.
TEST_F(MainWindowTest, PinnedTokenIsMarkedInEveryView) {
    QKV_REQUIRE_SHARED(shared);
    ASSERT_TRUE(open(modelPath(shared, "gpt2-random-tiny")));
    ASSERT_TRUE(type(kMovie));
    window->showTab(MainWindow::Tab::Head);
    const int items = window->headView()->heatmap()->plot()->itemCount();
    QWidget* chip = window->tokenChips()->chip(2);
    ASSERT_NE(chip, nullptr);
    QTest::mouseClick(chip, Qt::LeftButton);
    ASSERT_EQ(doc().pinnedToken(), 2);
    ASSERT_TRUE(settle());
    EXPECT_EQ(window->headView()->heatmap()->plot()->itemCount(), items + 2);  // row + column
    EXPECT_EQ(chip->property("pinned").toBool(), true);
    // Typing on at the end keeps the pin (each keystroke's text still has the token).
    const QString longer = kMovie + QStringLiteral(" Again");
    QTest::keyClicks(window->sentenceBar()->editor(), QStringLiteral(" Again"));
    ASSERT_TRUE(waitFor([&] { return doc().snapshot() && doc().snapshot()->text == longer; }));
    ASSERT_TRUE(settle());
    EXPECT_EQ(doc().pinnedToken(), 2);
    QTest::mouseClick(window->tokenChips()->chip(2), Qt::LeftButton);
    EXPECT_FALSE(doc().pinnedToken().has_value());
}

// The Compare tab's panels share one colour scale, or (toggle) each has its own.
TEST_F(MainWindowTest, CompareColourScaleCanBeSharedOrSeparate) {
    QKV_REQUIRE_SHARED(shared);
    ASSERT_TRUE(open(modelPath(shared, "gpt2-random-tiny")));
    ASSERT_TRUE(type(kMovie));
    WConfiguration outside = WConfiguration::parse("learned");
    outside.scaleOutside = true;
    doc().setConfig(outside);
    doc().setMode(HeatmapMode::Scores);
    window->showTab(MainWindow::Tab::Compare);
    CompareView* compare = window->compareView();
    compare->setSharedScale(true);
    ASSERT_TRUE(settle());
    const auto& shared3 = compare->heatmap()->figure().spec().panels;
    EXPECT_EQ(shared3[0].scaleGroup, shared3[1].scaleGroup);
    EXPECT_EQ(shared3[0].data.high, shared3[1].data.high);
    compare->setSharedScale(false);
    ASSERT_TRUE(settle());
    const auto& separate = compare->heatmap()->figure().spec().panels;
    EXPECT_NE(separate[0].scaleGroup, separate[1].scaleGroup);
    // Unscaled scores reach further than scaled ones: the scales now differ.
    EXPECT_GT(separate[1].data.high, separate[0].data.high);
}

// The published GQA pairing (h mod n_kv) recomputes the metrics the Overview and the weight
// panel show, as core's analysis with that pairing gives them.
TEST_F(MainWindowTest, GqaPairingChoosesTheMetricsShown) {
    QKV_REQUIRE_SHARED(shared);
    ASSERT_TRUE(open(modelPath(shared, "llama-random-gqa")));
    ASSERT_TRUE(type(kMovie));
    doc().setGqaPairing(GqaPairing::Modulo);
    ASSERT_TRUE(settle());
    ASSERT_TRUE(doc().metrics());
    EXPECT_EQ(doc().metrics()->pairing, GqaPairing::Modulo);
    const ModelMetrics expected = analyzeModel(*doc().model(), doc().config(), nullptr, nullptr, {},
                                               {.pairing = GqaPairing::Modulo});
    EXPECT_EQ(doc().metrics()->metrics->layers[0].heads[1].wqkSymmetry,
              expected.layers[0].heads[1].wqkSymmetry);
    doc().setGqaPairing(GqaPairing::HuggingFace);
    ASSERT_TRUE(settle());
    EXPECT_NE(doc().metrics()->metrics->layers[0].heads[1].wqkSymmetry,
              expected.layers[0].heads[1].wqkSymmetry);
}

TEST(ColorMaps, CividisIsOfferedForSequentialData) {
    EXPECT_TRUE(sequentialMapNames().contains(QStringLiteral("cividis")));
    QCPColorGradient cividis = sequentialGradient(QStringLiteral("cividis"));
    QCPColorGradient viridis = sequentialGradient(QStringLiteral("viridis"));
    EXPECT_EQ(QColor(cividis.color(0, QCPRange(0, 1))).name(), QStringLiteral("#00224e"));
    EXPECT_EQ(QColor(cividis.color(1, QCPRange(0, 1))).name(), QStringLiteral("#fee838"));
    EXPECT_NE(cividis.color(0.5, QCPRange(0, 1)), viridis.color(0.5, QCPRange(0, 1)));
}

// A tiny reference model without a tokenizer of its own (ids from the reference's word rule),
// copied into `dir` with the 512-piece tokenizer of llama-random-gqa, whose ids its 1024-token
// vocabulary covers.
QString withLlamaTokenizer(const std::filesystem::path& shared, const char* model,
                           const qkv::test::TempDir& dir) {
    for (const char* file : {"config.json", "model.safetensors"})
        std::filesystem::copy_file(shared / "models" / model / file, dir.path() / file);
    for (const char* file : {"tokenizer.json", "tokenizer_config.json", "special_tokens_map.json"})
        std::filesystem::copy_file(shared / "models" / "llama-random-gqa" / file,
                                   dir.path() / file);
    return QString::fromStdString(dir.path().string());
}

// A mixture of experts: a token chip's tooltip lists, layer by layer, the experts the token went
// to with their routing weights, as the core's trace has them.
TEST_F(MainWindowTest, TokenChipsListTheExpertsOfAMixture) {
    QKV_REQUIRE_SHARED(shared);
    qkv::test::TempDir dir;
    const QString folder = withLlamaTokenizer(shared, "mixtral-random-tiny", dir);
    ASSERT_TRUE(open(folder));
    ASSERT_TRUE(type(kMovie));
    const Reference reference = referenceTrace(folder, kMovie);
    const std::vector<LayerTrace>& layers = reference.trace.layers();
    ASSERT_EQ(layers.size(), 2u);
    const int token = 2;
    const QString tip = window->tokenChips()->chip(token)->toolTip();
    EXPECT_TRUE(tip.contains(QStringLiteral("experts (routing weight):"))) << tip.toStdString();
    for (int l = 0; l < 2; ++l) {
        ASSERT_GT(layers[l].routing.size(), static_cast<size_t>(token));
        const TokenRouting& chosen = layers[l].routing[token];
        const QString line = QStringLiteral("layer %1: expert %2 (%3), expert %4 (%5)")
                                 .arg(l)
                                 .arg(chosen[0].expert)
                                 .arg(chosen[0].weight, 0, 'f', 2)
                                 .arg(chosen[1].expert)
                                 .arg(chosen[1].weight, 0, 'f', 2);
        EXPECT_TRUE(tip.contains(line)) << line.toStdString() << " in " << tip.toStdString();
    }
    // A model without experts says nothing of them.
    ASSERT_TRUE(open(modelPath(shared, "gpt2-random-tiny")));
    ASSERT_TRUE(type(kMovie));
    EXPECT_FALSE(window->tokenChips()->chip(token)->toolTip().contains(QStringLiteral("expert")));
}

// gpt-oss's sinks: the Head tab's colour scale says rows sum to one minus the sink, a cell's
// tooltip gives its row's sink share (1 - the row's sum in the core's trace), and the Overview
// offers the mean sink share as a metric, for this model only.
TEST_F(MainWindowTest, AttentionSinksShowEachRowsShareAndTheHeadsMean) {
    QKV_REQUIRE_SHARED(shared);
    qkv::test::TempDir dir;
    const QString folder = withLlamaTokenizer(shared, "gpt_oss-random-tiny", dir);
    ASSERT_TRUE(open(folder));
    ASSERT_TRUE(type(kMovie));
    doc().setHead(1, 2);
    window->showTab(MainWindow::Tab::Head);
    ASSERT_TRUE(settle());
    HeatmapWidget* heatmap = window->headView()->heatmap();
    const HeatmapData& shownData = heatmap->figure().spec().panels.at(0).data;
    EXPECT_TRUE(shownData.scaleLabel.contains(QStringLiteral("rows sum to 1 − sink")));
    const Reference reference = referenceTrace(folder, kMovie);
    const int row = 3;
    const double share = 1.0 - reference.trace.probabilities(1, 2).row(row).cast<double>().sum();
    QTest::mouseMove(heatmap->plot(), heatmap->figure().cellCenter({0, row, 1}));
    const QString tip = heatmap->lastToolTip();
    const QString label = QStringLiteral("sink share of row i = ");
    const qsizetype at = tip.indexOf(label);
    ASSERT_GE(at, 0) << tip.toStdString();
    const QString shown = tip.mid(at + label.size()).section(QLatin1Char(' '), 0, 0);
    // Shown with 4 decimals.
    EXPECT_NEAR(shown.toDouble(), share, 1e-4) << tip.toStdString();
    // Beside the heatmap, each row's label ends with its share (2 decimals), as the axis says.
    EXPECT_TRUE(shownData.rowTitle.contains(QStringLiteral("sink share")));
    EXPECT_TRUE(shownData.rowLabels.at(row).endsWith(QStringLiteral(" %1").arg(share, 0, 'f', 2)))
        << shownData.rowLabels.at(row).toStdString();

    auto* metrics = window->overviewView()->findChild<QComboBox*>();
    ASSERT_NE(metrics, nullptr);
    const int sinkRow = metrics->findData(QStringLiteral("sink-share"));
    ASSERT_GE(sinkRow, 0);
    window->showTab(MainWindow::Tab::Overview);
    ASSERT_TRUE(settle());
    auto* list = qobject_cast<QListView*>(metrics->view());
    ASSERT_NE(list, nullptr);
    EXPECT_FALSE(list->isRowHidden(sinkRow));
    window->overviewView()->setShownMetric(HeadMetric::SinkShare);
    ASSERT_TRUE(settle());
    const auto computed = doc().metrics();
    ASSERT_TRUE(computed);
    const auto& head = computed->metrics->layers.at(1).heads.at(2);
    ASSERT_TRUE(head.sinkShare.has_value());
    double mean = 0;
    for (int i = 0; i < reference.trace.tokens(); ++i)
        mean += 1.0 - reference.trace.probabilities(1, 2).row(i).cast<double>().sum();
    mean /= reference.trace.tokens();
    EXPECT_NEAR(*head.sinkShare, mean, 1e-6);  // the same float32 trace, summed in double
    // The panel's number summarises the metric shown, not the W_QK symmetry.
    const QString title = window->overviewView()->heatmap()->figure().spec().panels.at(0).title;
    EXPECT_TRUE(title.startsWith(QStringLiteral("median over heads: "))) << title.toStdString();
    window->overviewView()->setShownMetric(HeadMetric::WqkSymmetry);
    ASSERT_TRUE(settle());
    EXPECT_TRUE(window->overviewView()->heatmap()->figure().spec().panels.at(0).title.startsWith(
        QStringLiteral("median over layers of s(W_Q W_Kᵀ)")));

    // A model without sinks does not offer the metric and says nothing of sinks.
    ASSERT_TRUE(open(modelPath(shared, "gpt2-random-tiny")));
    ASSERT_TRUE(type(kMovie));
    window->showTab(MainWindow::Tab::Overview);
    ASSERT_TRUE(settle());
    EXPECT_TRUE(list->isRowHidden(sinkRow));
    EXPECT_NE(window->overviewView()->shownMetric(), HeadMetric::SinkShare);
    window->showTab(MainWindow::Tab::Head);
    ASSERT_TRUE(settle());
    QTest::mouseMove(heatmap->plot(), heatmap->figure().cellCenter({0, row, 2}));
    EXPECT_TRUE(heatmap->lastToolTip().contains(QStringLiteral("A<sub>ij</sub>")));
    EXPECT_FALSE(heatmap->lastToolTip().contains(QStringLiteral("sink")));
}

// Latent attention (DeepSeek): the weight panel describes the head's factored form — its rank
// against the latents' bound, its parameters, the rotary part apart — and the configurations
// latent attention does not define are listed disabled; one that was chosen gives way to the
// learned configuration when such a model opens.
TEST_F(MainWindowTest, LatentAttentionShowsItsFactoredFormAndDefinedConfigurations) {
    QKV_REQUIRE_SHARED(shared);
    doc().setConfig(WConfiguration::parse("tied-kv"));
    qkv::test::TempDir dir;
    const QString folder = withLlamaTokenizer(shared, "deepseek_v3-random-tiny", dir);
    ASSERT_TRUE(open(folder));
    EXPECT_EQ(doc().config().name(), "learned");
    ASSERT_TRUE(type(kMovie));
    doc().setHead(1, 3);
    window->showTab(MainWindow::Tab::Head);
    ASSERT_TRUE(settle());
    const HeadMetrics h =
        analyzeHead(*doc().model(), WConfiguration{}, 1, 3, nullptr, {.copyingScores = false});
    ASSERT_TRUE(h.rotaryPart.has_value());
    const WeightPanel* panel = window->weightPanel();
    EXPECT_TRUE(
        panel->valueText("rank").startsWith(QStringLiteral("%1 of at most 16").arg(h.wqkRank)))
        << panel->valueText("rank").toStdString();
    EXPECT_TRUE(
        panel->valueText("rotary").startsWith(QStringLiteral("rank %1 of 8, symmetry %2")
                                                  .arg(h.rotaryPart->rank)
                                                  .arg(formatNumber(h.rotaryPart->symmetry))))
        << panel->valueText("rotary").toStdString();
    // Per head W_UQ (32 x 16) and W_UK (16 x 16); shared W_DQ (64 x 32) and W_DKV (64 x 16).
    QString parameters = panel->valueText("parameters");
    parameters.remove(QRegularExpression(QStringLiteral("[,.\u00a0\u202f]")));  // the locale's
    EXPECT_TRUE(parameters.contains(QStringLiteral("768 per head"))) << parameters.toStdString();
    EXPECT_TRUE(parameters.contains(QStringLiteral("3072 shared"))) << parameters.toStdString();

    auto* presets = qobject_cast<QStandardItemModel*>(window->configPanel()->presetBox()->model());
    ASSERT_NE(presets, nullptr);
    auto enabled = [&](const char* name) {
        return presets->item(window->configPanel()->presetBox()->findText(name))->isEnabled();
    };
    EXPECT_TRUE(enabled("shared-qk"));
    EXPECT_TRUE(enabled("sym-scores"));
    EXPECT_FALSE(enabled("tied-kv"));
    EXPECT_FALSE(enabled("single-w"));
}

// Gemma 4's global layers tie W_V = W_K themselves: the weight panel says so and counts with the
// layer's own head width; Compare under tied-kv says the layer changes nothing of its own. The
// model has no tokenizer and opens while Compare is the current tab (a case that once crashed).
TEST_F(MainWindowTest, GemmaFourSaysWhereTheModelTiesKeysAndValues) {
    QKV_REQUIRE_SHARED(shared);
    window->showTab(MainWindow::Tab::Compare);
    ASSERT_TRUE(open(modelPath(shared, "gemma4-random-tiny")));
    ASSERT_TRUE(type(QStringLiteral("#2 17 401 33 902 250 77 5")));
    doc().setConfig(WConfiguration::parse("tied-kv"));
    doc().setHead(1, 0);
    ASSERT_TRUE(settle());
    const QLabel* note = nullptr;
    for (const QLabel* label : window->weightPanel()->findChildren<QLabel*>())
        if (label->text().contains(QStringLiteral("W_V = W_K (tied by the model)"))) note = label;
    ASSERT_NE(note, nullptr);
    EXPECT_TRUE(window->weightPanel()->valueText("rank").contains(QStringLiteral("d_k = 32")))
        << window->weightPanel()->valueText("rank").toStdString();
    bool hinted = false;
    for (const QLabel* label : window->compareView()->findChildren<QLabel*>())
        hinted |= label->isVisible() && label->text().contains(QStringLiteral("changes nothing"));
    EXPECT_TRUE(hinted);
    doc().setHead(0, 0);  // a local layer has its own W_V: no such note
    ASSERT_TRUE(settle());
    for (const QLabel* label : window->weightPanel()->findChildren<QLabel*>())
        EXPECT_FALSE(label->isVisible() &&
                     label->text().contains(QStringLiteral("W_V = W_K (tied by the model)")));
}

// Gemma 3n's last layers attend over an earlier layer's keys and values: the weight panel says
// whose, the layer picker's description too, and a layer computing its own says neither.
TEST_F(MainWindowTest, GemmaThreeNSaysWhichLayersKeysAndValuesASharedLayerAttendsOver) {
    QKV_REQUIRE_SHARED(shared);
    ASSERT_TRUE(open(modelPath(shared, "gemma3n-random-tiny")));
    ASSERT_TRUE(type(QStringLiteral("#2 268 463 498 92 162 465 209 107")));
    window->showTab(MainWindow::Tab::Head);
    doc().setHead(2, 1);
    ASSERT_TRUE(settle());
    auto noteSays = [&](const QString& text) {
        for (const QLabel* label : window->weightPanel()->findChildren<QLabel*>())
            if (label->isVisible() && label->text().contains(text)) return true;
        return false;
    };
    EXPECT_TRUE(noteSays(QStringLiteral("attends over layer 0's keys and values")));
    EXPECT_TRUE(doc().shownLayerKind(2).contains(QStringLiteral("K and V are layer 0's")))
        << doc().shownLayerKind(2).toStdString();
    EXPECT_TRUE(doc().shownLayerKind(0).contains(QStringLiteral("serve later layers")))
        << doc().shownLayerKind(0).toStdString();
    keepScreenshot(window.get(), QStringLiteral("gemma3n-shared-kv"));
    doc().setHead(0, 1);
    ASSERT_TRUE(settle());
    EXPECT_FALSE(noteSays(QStringLiteral("Shared keys and values")));
}

// A GGUF file opens as a model (File ▸ Open GGUF File…, drag and drop and recent models take
// the file itself) and its heads are shown from token ids.
TEST_F(MainWindowTest, GgufFileOpensAndShowsItsHeads) {
    QKV_REQUIRE_SHARED_GGUF(shared);
    const QString file = QString::fromStdString(
        (shared / "gguf" / "qwen3-gguf-tiny" / "qwen3-gguf-tiny-Q4_K_M.gguf").string());
    ASSERT_TRUE(open(file));
    ASSERT_TRUE(type(QStringLiteral("#5 900 17 263")));
    doc().setHead(1, 7);
    window->showTab(MainWindow::Tab::Head);
    ASSERT_TRUE(settle());
    ASSERT_NE(doc().snapshot(), nullptr);
    EXPECT_TRUE(doc().snapshot()->includes(1, 7));
    EXPECT_EQ(doc().snapshot()->trace->probabilities(1, 7).rows(), 4);
    EXPECT_EQ(RecentModels::list().value(0), file);
}

}  // namespace
}  // namespace qkv::ui::test
