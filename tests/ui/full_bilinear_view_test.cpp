// A model the training lab saved under full-bilinear opens in the app: Head details describe
// each head's own d_model x d_model W_h (its spectrum, rank against d_model, symmetry), and the
// configurations that would share or tie its missing W_Q and W_K are listed disabled with the
// reason.
#include <QComboBox>
#include <QRegularExpression>
#include <QStandardItemModel>

#include "core/analysis/head_metrics.h"
#include "core/train/checkpoint.h"
#include "core/train/parameters.h"
#include "tests/support/fixture_writer.h"
#include "tests/support/tyings.h"
#include "tests/ui/ui_test_support.h"
#include "ui/views/cell_tooltip.h"
#include "ui/views/config_panel.h"
#include "ui/views/weight_panel.h"
#include "ui/window/main_window.h"

namespace qkv::ui::test {
namespace {

// The tiny lab shape at its initialisation.
void writeFullBilinearModel(const std::filesystem::path& folder) {
    const train::ModelShape shape = qkv::test::tinyLabShape("full-bilinear");
    const train::ParameterLayout layout(shape);
    train::writeConfigJson(shape, 0, folder);
    train::writeModelWeights(shape, train::initialParameters(layout, shape, 3), {}, folder);
}

TEST_F(MainWindowTest, FullBilinearHeadDetailsShowEachHeadsOwnMatrix) {
    doc().setConfig(WConfiguration::parse("tied-kv"));
    qkv::test::TempDir dir;
    writeFullBilinearModel(dir.path());
    ASSERT_TRUE(open(QString::fromStdString(dir.path().string())));
    EXPECT_EQ(doc().config().name(), "learned");  // tied-kv is not defined for it
    ASSERT_TRUE(type(QStringLiteral("#3 17 42 8 29")));
    doc().setHead(1, 1);
    window->showTab(MainWindow::Tab::Head);
    ASSERT_TRUE(settle());
    const HeadMetrics h = analyzeHead(*doc().model(), WConfiguration{}, 1, 1);
    ASSERT_EQ(h.wqkSingularValues.size(), 32u);
    const WeightPanel* panel = window->weightPanel();
    EXPECT_TRUE(panel->valueText("rank").startsWith(
        QStringLiteral("%1 of at most d_model = 32 (a factored head's: d_k = 16)").arg(h.wqkRank)))
        << panel->valueText("rank").toStdString();
    EXPECT_EQ(panel->valueText("symmetry"), formatNumber(h.wqkSymmetry));
    EXPECT_TRUE(panel->valueText("qk").startsWith(QStringLiteral("not defined")));
    EXPECT_TRUE(panel->valueText("ov-rank").endsWith(QStringLiteral("d_v = 16")))
        << panel->valueText("ov-rank").toStdString();
    QString parameters = panel->valueText("parameters");
    parameters.remove(QRegularExpression(QStringLiteral("[,.\u00a0\u202f]")));  // the locale's
    EXPECT_TRUE(parameters.contains(QStringLiteral("d_model² = 1024"))) << parameters.toStdString();

    const ConfigPanel* config = window->configPanel();
    auto* presets = qobject_cast<QStandardItemModel*>(config->presetBox()->model());
    ASSERT_NE(presets, nullptr);
    auto item = [&](const char* name) {
        return presets->item(config->presetBox()->findText(name));
    };
    for (const char* refused : {"shared-qk", "tied-kv", "single-w"}) {
        EXPECT_FALSE(item(refused)->isEnabled()) << refused;
        EXPECT_TRUE(item(refused)->toolTip().contains(QStringLiteral("full-bilinear"))) << refused;
    }
    for (const char* defined : {"learned", "sym-scores", "skew-scores"})
        EXPECT_TRUE(item(defined)->isEnabled()) << defined;
}

}  // namespace
}  // namespace qkv::ui::test
