// File ▸ Compare With…: a GGUF quantisation against its float32 file, on the same tokens. The
// Overview ranks every head by the core's attention change, the Compare tab shows both heads and
// their difference, another architecture is refused with the reason, and stopping ends it.
#include "core/analysis/model_comparison.h"
#include "tests/ui/ui_test_support.h"
#include "ui/compute/compute_types.h"
#include "ui/plot/metric_matrices.h"
#include "ui/views/compare_view.h"
#include "ui/views/heatmap_widget.h"
#include "ui/views/overview_view.h"

namespace qkv::ui::test {
namespace {

QString gguf(const std::filesystem::path& shared, const char* arch, const char* type) {
    const std::string name = std::string(arch) + "-gguf-tiny";
    return QString::fromStdString(
        (shared / "gguf" / name / (name + "-" + type + ".gguf")).string());
}

TEST_F(MainWindowTest, CompareWithShowsWhatQuantisationChangesInEveryHead) {
    QKV_REQUIRE_SHARED_GGUF(shared);
    const QString q4 = gguf(shared, "llama", "Q4_K_M"), f32 = gguf(shared, "llama", "F32");
    ASSERT_TRUE(open(q4));
    ASSERT_TRUE(type(QStringLiteral("The keys respond alike to the query.")));
    window->compareWith(f32);
    ASSERT_TRUE(waitFor([&] { return !doc().comparisonName().isEmpty(); }));
    EXPECT_EQ(doc().comparisonName(), QStringLiteral("llama-gguf-tiny-F32.gguf"));
    ASSERT_TRUE(waitFor([&] {
        return doc().metrics() && doc().metrics()->metrics->layers[0].heads[0].attentionChange;
    }));
    ASSERT_TRUE(settle());
    EXPECT_EQ(window->currentTab(), MainWindow::Tab::Overview);
    EXPECT_EQ(window->overviewView()->shownMetric(), HeadMetric::AttentionChange);

    // Each head's change is the core's for the same ids (both on the CPU here; the window may
    // run Vulkan: float32 attention agrees to 1e-5 across backends, far below the changes).
    const std::vector<int> ids = idsOf(doc().snapshot()->tokens);
    const auto a = Model::open(q4.toStdString()), b = Model::open(f32.toStdString());
    auto backendA = createCpuBackend(), backendB = createCpuBackend();
    const ModelComparison expected = compareModels(*a, *b, ids, *backendA, *backendB);
    const ModelMetrics& shown = *doc().metrics()->metrics;
    const HeatmapFigure& overview = window->overviewView()->heatmap()->figure();
    for (size_t l = 0; l < expected.layers.size(); ++l)
        for (size_t h = 0; h < expected.layers[l].size(); ++h) {
            const HeadChange& e = expected.layers[l][h];
            const HeadMetrics& m = shown.layers[l].heads[h];
            EXPECT_NEAR(*m.attentionChange, e.attentionChange, 1e-4) << l << " " << h;
            EXPECT_NEAR(*m.wqkSymmetryChange, e.symmetryB - e.symmetryA, 1e-9) << l << " " << h;
            EXPECT_DOUBLE_EQ(overview.shownValue({0, static_cast<int>(l), static_cast<int>(h)}),
                             *m.attentionChange);
        }
    EXPECT_GT(expected.largestAttentionChange(), 0.0);  // 4-bit weights move attention

    // The Compare tab: the open model's head, the compared one's, and their difference.
    doc().setHead(1, 2);
    window->showTab(MainWindow::Tab::Compare);
    ASSERT_TRUE(settle());
    const HeatmapFigure& figure = window->compareView()->heatmap()->figure();
    ASSERT_EQ(figure.spec().panels.size(), 3u);
    EXPECT_EQ(figure.spec().panels[0].title, QStringLiteral("llama-gguf-tiny-Q4_K_M.gguf"));
    EXPECT_EQ(figure.spec().panels[1].title, QStringLiteral("llama-gguf-tiny-F32.gguf"));
    const RowMatrixXf& ours = doc().snapshot()->trace->probabilities(1, 2);
    const RowMatrixXf& theirs = doc().snapshot()->compared->probabilities(1, 2);
    const int last = static_cast<int>(ours.rows()) - 1;
    EXPECT_FLOAT_EQ(figure.shownValue({0, last, 0}), ours(last, 0));
    EXPECT_FLOAT_EQ(figure.shownValue({1, last, 0}), theirs(last, 0));
    EXPECT_NEAR(figure.shownValue({2, last, 0}), theirs(last, 0) - ours(last, 0), 1e-7);

    // Another architecture is refused with the reason; the comparison open stays.
    window->compareWith(gguf(shared, "qwen2", "F32"));
    ASSERT_TRUE(waitFor([&] { return !sink.errors.isEmpty(); }));
    EXPECT_TRUE(sink.errors.front().contains(QStringLiteral("not checkpoints of one model")))
        << sink.errors.front().toStdString();
    EXPECT_EQ(doc().comparisonName(), QStringLiteral("llama-gguf-tiny-F32.gguf"));

    // Stopping: the next results hold no compared trace and the change metrics leave the list.
    window->compareWith({});
    ASSERT_TRUE(waitFor([&] { return doc().comparisonName().isEmpty(); }));
    ASSERT_TRUE(settle());
    EXPECT_EQ(doc().snapshot()->compared, nullptr);
    EXPECT_NE(window->overviewView()->shownMetric(), HeadMetric::AttentionChange);
}

}  // namespace
}  // namespace qkv::ui::test
