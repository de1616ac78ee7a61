// Multi-seed experiments in the Training tab: the folder reader (summary.json and every run's
// log, with a clear message for each way a folder can be wrong), the bands over seeds, and the
// window's File ▸ Open Experiment path: what is drawn, what the table says, that a bad folder
// changes nothing and that opening a model or closing the experiment returns to the model's
// variants. Also the model's own logs when they carry a step-0 entry and relation accuracy.
#include <qcustomplot.h>

#include <QDir>
#include <QFile>
#include <QMenu>
#include <QMenuBar>
#include <QTemporaryDir>
#include <cmath>

#include "core/util/error.h"
#include "tests/support/fixture_writer.h"
#include "tests/ui/training_fixture.h"
#include "tests/ui/ui_test_support.h"
#include "ui/plot/tying_colors.h"
#include "ui/training/experiment_folder.h"
#include "ui/training/seed_bands.h"
#include "ui/views/experiment_table.h"
#include "ui/views/experiment_view.h"
#include "ui/views/training_view.h"

namespace qkv::ui::test {
namespace {

// Two variants × two seeds, logged at steps 0, 100 and 200 (step 0 without a training loss).
struct FakeRun {
    const char* variant;
    int seed;
    double valLoss[3];
    double accuracy[3];
};
const FakeRun kRuns[] = {
    {"learned", 1, {7.0, 2.0, 1.5}, {0.50, 0.70, 0.80}},
    {"learned", 2, {6.8, 2.2, 1.3}, {0.48, 0.74, 0.84}},
    {"shared-qk", 1, {7.1, 2.1, 1.6}, {0.50, 0.60, 0.70}},
    {"shared-qk", 2, {6.9, 2.5, 1.4}, {0.52, 0.66, 0.78}},
};
const int kSteps[] = {0, 100, 200};

void writeText(const QString& path, const std::string& text) {
    QDir().mkpath(QFileInfo(path).absolutePath());
    QFile file(path);
    ASSERT_TRUE(file.open(QIODevice::WriteOnly | QIODevice::Truncate)) << path.toStdString();
    file.write(text.data(), static_cast<qint64>(text.size()));
}

QString logOf(const char* variant, int seed) {
    return QStringLiteral("%1/seed-%2/training_log.json").arg(variant).arg(seed);
}

nlohmann::json fakeLog(const FakeRun& run) {
    nlohmann::json steps = nlohmann::json::array();
    for (int i = 0; i < 3; ++i) {
        nlohmann::json entry = {{"step", kSteps[i]},
                                {"val_loss", run.valLoss[i]},
                                {"relation_accuracy", run.accuracy[i]}};
        if (kSteps[i] > 0) {
            entry["train_loss"] = run.valLoss[i] + 0.01;
            entry["tokens_per_s"] = 1000.0;
            entry["learning_rate"] = 0.006;
        }
        steps.push_back(entry);
    }
    return {{"command", "qkvlab-cli train"},
            {"seed", run.seed},
            {"config", {{"attention", run.variant}, {"steps", 200}, {"parameters", 1000}}},
            {"steps", steps},
            {"completed_steps", 200},
            {"finished", true},
            {"final",
             {{"step", 200}, {"train_loss", run.valLoss[2] + 0.01}, {"val_loss", run.valLoss[2]}}}};
}

nlohmann::json fakeSummary() {
    auto runsOf = [](const char* variant) {
        nlohmann::json runs = nlohmann::json::array();
        for (const FakeRun& r : kRuns)
            if (std::string(r.variant) == variant)
                runs.push_back({{"seed", r.seed},
                                {"log", logOf(r.variant, r.seed).toStdString()},
                                {"val_loss", r.valLoss[2]},
                                {"relation_accuracy", r.accuracy[2]}});
        return runs;
    };
    return {
        {"format", "qkvlab-experiment"},
        {"version", 1},
        {"command", "qkvlab-cli experiment --variants learned,shared-qk --seeds 2"},
        {"seeds", {1, 2}},
        {"steps", 200},
        {"baseline", "learned"},
        {"variants",
         {{{"name", "learned"},
           {"parameters", 812345},
           {"runs", runsOf("learned")},
           {"val_loss", {{"mean", 1.4}, {"sd", 0.1414}, {"min", 1.3}, {"max", 1.5}}},
           {"relation_accuracy", {{"mean", 0.82}, {"sd", 0.0283}, {"min", 0.8}, {"max", 0.84}}}},
          {{"name", "shared-qk"},
           {"parameters", 790000},
           {"runs", runsOf("shared-qk")},
           {"val_loss", {{"mean", 1.5}, {"sd", 0.1414}, {"min", 1.4}, {"max", 1.6}}},
           {"relation_accuracy", {{"mean", 0.74}, {"sd", 0.0566}, {"min", 0.7}, {"max", 0.78}}},
           {"vs_baseline",
            {{"val_loss", {{"mean", 0.1}, {"sd", 0.0}, {"exceeds_spread", true}}},
             {"relation_accuracy",
              {{"mean", -0.08}, {"sd", 0.0283}, {"exceeds_spread", false}}}}}}}}};
}

// DIR/summary.json and the four runs' logs.
void writeFakeExperiment(const QString& dir, const nlohmann::json& summary = fakeSummary()) {
    writeText(QDir(dir).filePath("summary.json"), summary.dump(2));
    for (const FakeRun& r : kRuns)
        writeText(QDir(dir).filePath(logOf(r.variant, r.seed)), fakeLog(r).dump(2));
}

// The runs of one variant, in seed order.
std::vector<const FakeRun*> runsOf(const char* variant) {
    std::vector<const FakeRun*> runs;
    for (const FakeRun& r : kRuns)
        if (std::string(r.variant) == variant) runs.push_back(&r);
    return runs;
}

std::string errorOf(const QString& folder) {
    try {
        readExperimentFolder(folder);
    } catch (const Error& e) {
        return e.what();
    }
    return "(no error)";
}

TEST(TrainingExperiment, ReadsTheSummaryAndEveryRunsLog) {
    QTemporaryDir dir;
    writeFakeExperiment(dir.path());
    const ExperimentFolder e = readExperimentFolder(dir.path());
    EXPECT_EQ(e.folder, QDir(dir.path()).absolutePath());
    EXPECT_EQ(e.seeds, (std::vector<int>{1, 2}));
    EXPECT_EQ(e.steps, 200);
    EXPECT_EQ(e.baseline, QStringLiteral("learned"));
    ASSERT_EQ(e.variants.size(), 2u);
    EXPECT_EQ(e.loadedRuns(), 4);
    EXPECT_TRUE(e.runErrors().isEmpty());

    const ExperimentVariant& learned = e.variants[0];
    EXPECT_EQ(learned.name, QStringLiteral("learned"));
    EXPECT_EQ(learned.parameters, 812345);
    ASSERT_TRUE(learned.valLoss);
    EXPECT_DOUBLE_EQ(learned.valLoss->mean, 1.4);
    EXPECT_DOUBLE_EQ(learned.valLoss->sd, 0.1414);
    EXPECT_FALSE(learned.valLossVsBaseline);  // the baseline has no difference to itself
    ASSERT_EQ(learned.runs.size(), 2u);
    EXPECT_EQ(learned.runs[1].seed, 2);
    EXPECT_EQ(learned.runs[1].logPath, QDir(dir.path()).absoluteFilePath(logOf("learned", 2)));
    ASSERT_TRUE(learned.runs[1].run);
    const TrainingRun& log = *learned.runs[1].run;
    ASSERT_EQ(log.points.size(), 3u);
    EXPECT_EQ(log.points[0].step, 0);
    EXPECT_TRUE(std::isnan(log.points[0].trainLoss));  // step 0: nothing trained yet
    EXPECT_DOUBLE_EQ(log.points[0].valLoss, 6.8);
    EXPECT_DOUBLE_EQ(*log.points[1].relationAccuracy, 0.74);

    const ExperimentVariant& shared = e.variants[1];
    ASSERT_TRUE(shared.valLossVsBaseline && shared.relationAccuracyVsBaseline);
    EXPECT_DOUBLE_EQ(shared.valLossVsBaseline->mean, 0.1);
    EXPECT_TRUE(shared.valLossVsBaseline->exceedsSpread);
    EXPECT_DOUBLE_EQ(shared.relationAccuracyVsBaseline->mean, -0.08);
    EXPECT_FALSE(shared.relationAccuracyVsBaseline->exceedsSpread);
}

TEST(TrainingExperiment, BandsAreTheMinAndMaxOverSeedsAroundTheMean) {
    QTemporaryDir dir;
    writeFakeExperiment(dir.path());
    const ExperimentFolder e = readExperimentFolder(dir.path());
    for (const ExperimentVariant& v : e.variants) {
        const auto runs = runsOf(v.name.toUtf8().constData());
        const SeedBand loss = seedBand(v, validationLossOf);
        const SeedBand accuracy = seedBand(v, relationAccuracyOf);
        ASSERT_EQ(loss.size(), 3u);
        ASSERT_EQ(accuracy.size(), 3u);
        for (int i = 0; i < 3; ++i) {
            const double a = runs[0]->valLoss[i], b = runs[1]->valLoss[i];
            EXPECT_EQ(loss[i].step, kSteps[i]);
            EXPECT_EQ(loss[i].seeds, 2);
            EXPECT_DOUBLE_EQ(loss[i].min, std::min(a, b));
            EXPECT_DOUBLE_EQ(loss[i].max, std::max(a, b));
            EXPECT_DOUBLE_EQ(loss[i].mean, (a + b) / 2);
            const double c = runs[0]->accuracy[i], d = runs[1]->accuracy[i];
            EXPECT_DOUBLE_EQ(accuracy[i].min, std::min(c, d));
            EXPECT_DOUBLE_EQ(accuracy[i].max, std::max(c, d));
            EXPECT_DOUBLE_EQ(accuracy[i].mean, (c + d) / 2);
        }
    }
}

TEST(TrainingExperiment, AMissingRunLogIsReportedOnThatRunAlone) {
    QTemporaryDir dir;
    writeFakeExperiment(dir.path());
    ASSERT_TRUE(QFile::remove(QDir(dir.path()).filePath(logOf("shared-qk", 2))));
    const ExperimentFolder e = readExperimentFolder(dir.path());
    EXPECT_EQ(e.loadedRuns(), 3);
    const QStringList errors = e.runErrors();
    ASSERT_EQ(errors.size(), 1);
    EXPECT_TRUE(errors[0].startsWith(QStringLiteral("shared-qk, seed 2: ")))
        << errors[0].toStdString();
    EXPECT_TRUE(errors[0].contains(QStringLiteral("seed-2/training_log.json: missing")))
        << errors[0].toStdString();
    // The band is the one seed left.
    const SeedBand loss = seedBand(e.variants[1], validationLossOf);
    ASSERT_EQ(loss.size(), 3u);
    EXPECT_EQ(loss[2].seeds, 1);
    EXPECT_DOUBLE_EQ(loss[2].min, 1.6);
    EXPECT_DOUBLE_EQ(loss[2].max, 1.6);
}

TEST(TrainingExperiment, RunsTheSummaryListsAsMissingAreReadAgain) {
    QTemporaryDir dir;
    nlohmann::json summary = fakeSummary();
    nlohmann::json& shared = summary["variants"][1];
    shared["runs"].erase(1);  // seed 2, as qkvlab-cli experiment lists a run it could not read
    summary["missing_runs"] = {logOf("shared-qk", 2).toStdString()};
    shared["relation_accuracy"] = {{"mean", nullptr}, {"sd", nullptr}, {"count", 0}};
    writeFakeExperiment(dir.path(), summary);
    const QString log = QDir(dir.path()).filePath(logOf("shared-qk", 2));

    // Written since: read like the others.
    ExperimentFolder e = readExperimentFolder(dir.path());
    ASSERT_EQ(e.variants[1].runs.size(), 2u);
    EXPECT_EQ(e.variants[1].runs[1].seed, 2);
    EXPECT_TRUE(e.variants[1].runs[1].run);
    EXPECT_FALSE(e.variants[1].relationAccuracy);  // a spread over no seeds

    ASSERT_TRUE(QFile::remove(log));
    e = readExperimentFolder(dir.path());
    ASSERT_EQ(e.variants[1].runs.size(), 2u);
    EXPECT_EQ(e.loadedRuns(), 3);
    ASSERT_EQ(e.runErrors().size(), 1);
    EXPECT_TRUE(e.runErrors()[0].startsWith(QStringLiteral("shared-qk, seed 2: ")))
        << e.runErrors()[0].toStdString();
}

TEST(TrainingExperiment, ABadSummaryGivesAClearError) {
    QTemporaryDir dir;
    const QString summary = QDir(dir.path()).filePath("summary.json");
    EXPECT_NE(errorOf(dir.path()).find("has no summary.json"), std::string::npos)
        << errorOf(dir.path());

    writeText(summary, "{\"format\": \"qkvlab-experiment\", \"version\": ");
    EXPECT_NE(errorOf(dir.path()).find("summary.json: invalid JSON"), std::string::npos)
        << errorOf(dir.path());

    nlohmann::json wrong = fakeSummary();
    wrong["format"] = "something-else";
    writeText(summary, wrong.dump());
    EXPECT_NE(errorOf(dir.path()).find("not a QKV Lab experiment summary"), std::string::npos)
        << errorOf(dir.path());

    nlohmann::json newer = fakeSummary();
    newer["version"] = 2;
    writeText(summary, newer.dump());
    EXPECT_NE(errorOf(dir.path()).find("version 2, written by a newer QKV Lab"), std::string::npos)
        << errorOf(dir.path());

    nlohmann::json empty = fakeSummary();
    empty["variants"] = nlohmann::json::array();
    writeText(summary, empty.dump());
    EXPECT_NE(errorOf(dir.path()).find("variants: expected a list of at least one variant"),
              std::string::npos)
        << errorOf(dir.path());

    nlohmann::json noRuns = fakeSummary();
    noRuns["variants"][1].erase("runs");
    writeText(summary, noRuns.dump());
    EXPECT_NE(errorOf(dir.path()).find("(shared-qk): missing \"runs\""), std::string::npos)
        << errorOf(dir.path());
}

class TrainingExperimentTab : public MainWindowTest {
  protected:
    void openToyModel() {
        writeVariantFolder(modelDir(), {QStringLiteral("learned"), 1});
        ASSERT_TRUE(open(QString::fromStdString(modelDir().string())));
        window->showTab(MainWindow::Tab::Training);
        ASSERT_FALSE(view()->isShowingEmptyState());
    }
    std::filesystem::path modelDir() const {
        return std::filesystem::path(models.path().toStdString()) / "toy-learned";
    }
    QAction* fileAction(const QString& text) {
        for (QAction* menu : window->menuBar()->actions())
            if (menu->menu())
                for (QAction* action : menu->menu()->actions())
                    if (action->text().remove(u'&') == text) return action;
        return nullptr;
    }
    TrainingView* view() { return window->trainingView(); }
    ExperimentView* experiment() { return view()->experimentView(); }
    QString cellText(int row, int column) {
        const QTableWidgetItem* item = experiment()->table()->item(row, column);
        return item ? item->text() : QStringLiteral("(no item)");
    }
    // Graphs 3v, 3v + 1, 3v + 2 of PLOT against the fake runs of variant V.
    void expectBands(QCustomPlot* plot, int v, const char* variant, bool accuracy) {
        const auto runs = runsOf(variant);
        QCPGraph* lower = plot->graph(3 * v);
        QCPGraph* upper = plot->graph(3 * v + 1);
        QCPGraph* mean = plot->graph(3 * v + 2);
        EXPECT_EQ(upper->channelFillGraph(), lower);
        EXPECT_NE(upper->brush().style(), Qt::NoBrush);
        EXPECT_GT(upper->brush().color().alpha(), 0);
        EXPECT_EQ(mean->name(), QString::fromUtf8(variant));
        EXPECT_EQ(mean->pen().color(), tyingColor(QString::fromUtf8(variant)));
        ASSERT_EQ(mean->data()->size(), 3);
        ASSERT_EQ(lower->data()->size(), 3);
        ASSERT_EQ(upper->data()->size(), 3);
        for (int i = 0; i < 3; ++i) {
            const double a = accuracy ? runs[0]->accuracy[i] : runs[0]->valLoss[i];
            const double b = accuracy ? runs[1]->accuracy[i] : runs[1]->valLoss[i];
            EXPECT_EQ(mean->data()->at(i)->key, kSteps[i]);
            EXPECT_EQ(lower->data()->at(i)->key, kSteps[i]);
            EXPECT_DOUBLE_EQ(lower->data()->at(i)->value, std::min(a, b)) << variant << " " << i;
            EXPECT_DOUBLE_EQ(upper->data()->at(i)->value, std::max(a, b)) << variant << " " << i;
            EXPECT_DOUBLE_EQ(mean->data()->at(i)->value, (a + b) / 2) << variant << " " << i;
        }
    }
    QTemporaryDir models;
    QTemporaryDir experimentDir;
};

TEST_F(TrainingExperimentTab, OpenExperimentDrawsMeanLinesMinMaxBandsAndTheTable) {
    openToyModel();
    window->showTab(MainWindow::Tab::Head);
    writeFakeExperiment(experimentDir.path());

    QAction* openAction = fileAction(QStringLiteral("Open Experiment…"));
    ASSERT_TRUE(openAction);
    EXPECT_EQ(openAction->shortcut(), QKeySequence(QStringLiteral("Ctrl+Shift+E")));
    QAction* closeAction = fileAction(QStringLiteral("Close Experiment"));
    ASSERT_TRUE(closeAction);
    EXPECT_FALSE(closeAction->isEnabled());

    ASSERT_TRUE(window->openExperiment(experimentDir.path()));
    EXPECT_TRUE(sink.errors.isEmpty()) << sink.errors.join("; ").toStdString();
    EXPECT_EQ(window->currentTab(), MainWindow::Tab::Training);
    EXPECT_TRUE(view()->isShowingExperiment());
    EXPECT_TRUE(experiment()->isVisible());
    EXPECT_TRUE(closeAction->isEnabled());

    QCustomPlot* loss = experiment()->lossPlot();
    QCustomPlot* accuracy = experiment()->accuracyPlot();
    ASSERT_EQ(loss->graphCount(), 2 * 3 + 1);  // then the band's legend key
    ASSERT_EQ(accuracy->graphCount(), 2 * 3 + 1);
    EXPECT_TRUE(accuracy->isVisible());
    expectBands(loss, 0, "learned", false);
    expectBands(loss, 1, "shared-qk", false);
    expectBands(accuracy, 0, "learned", true);
    expectBands(accuracy, 1, "shared-qk", true);
    EXPECT_EQ(loss->graph(6)->name(), QStringLiteral("min–max over 2 seeds"));
    EXPECT_EQ(loss->xAxis->range().lower, 0);  // step 0 is on the plot

    using T = ExperimentTable;
    EXPECT_EQ(experiment()->table()->rowCount(), 2);
    EXPECT_EQ(cellText(0, T::Variant), QStringLiteral("learned"));
    EXPECT_EQ(cellText(0, T::Seeds), QStringLiteral("2"));
    EXPECT_EQ(cellText(0, T::ValLoss), QStringLiteral("1.4000 ± 0.1414"));
    EXPECT_EQ(cellText(0, T::ValLossVsBaseline), QStringLiteral("baseline"));
    EXPECT_EQ(cellText(0, T::RelationAccuracy), QStringLiteral("0.820 ± 0.028"));
    EXPECT_EQ(cellText(1, T::Variant), QStringLiteral("shared-qk"));
    EXPECT_EQ(cellText(1, T::ValLoss), QStringLiteral("1.5000 ± 0.1414"));
    EXPECT_EQ(cellText(1, T::ValLossVsBaseline), QStringLiteral("+0.1000 ± 0.0000 *"));
    EXPECT_TRUE(experiment()->table()->item(1, T::ValLossVsBaseline)->font().bold());
    EXPECT_EQ(cellText(1, T::RelationAccuracy), QStringLiteral("0.740 ± 0.057"));
    EXPECT_EQ(cellText(1, T::RelationAccuracyVsBaseline), QStringLiteral("-0.080 ± 0.028"));
    EXPECT_FALSE(experiment()->table()->item(1, T::RelationAccuracyVsBaseline)->font().bold());
    EXPECT_TRUE(experiment()->bannerText().contains(QStringLiteral("baseline <b>learned</b>")));
    EXPECT_TRUE(experiment()->noticeText().isEmpty());

    // Closing returns to the model's own variants.
    closeAction->trigger();
    EXPECT_FALSE(view()->isShowingExperiment());
    EXPECT_FALSE(closeAction->isEnabled());
    EXPECT_FALSE(view()->isShowingEmptyState());
    EXPECT_TRUE(view()->lossPlot()->isVisible());
    EXPECT_EQ(view()->lossPlot()->graph(1)->name(), QStringLiteral("learned"));
}

TEST_F(TrainingExperimentTab, ABadFolderShowsTheReadersMessageAndChangesNothing) {
    openToyModel();
    const int modelGraphs = view()->lossPlot()->graphCount();
    const QString summary = QDir(experimentDir.path()).filePath("summary.json");
    writeFakeExperiment(experimentDir.path());
    writeText(summary, "{\"format\": \"qkvlab-experiment\", [");

    EXPECT_FALSE(window->openExperiment(experimentDir.path()));
    ASSERT_EQ(sink.errors.size(), 1);
    EXPECT_TRUE(sink.errors[0].startsWith(QStringLiteral("Cannot open the experiment: ")));
    EXPECT_TRUE(sink.errors[0].contains(QStringLiteral("summary.json: invalid JSON")))
        << sink.errors[0].toStdString();
    EXPECT_FALSE(view()->isShowingExperiment());
    EXPECT_EQ(view()->lossPlot()->graphCount(), modelGraphs);
    EXPECT_TRUE(view()->lossPlot()->isVisible());

    // With an experiment open, a version 2 summary leaves it as it was.
    QTemporaryDir good;
    writeFakeExperiment(good.path());
    ASSERT_TRUE(window->openExperiment(good.path()));
    nlohmann::json newer = fakeSummary();
    newer["version"] = 2;
    writeText(summary, newer.dump());
    EXPECT_FALSE(window->openExperiment(experimentDir.path()));
    ASSERT_EQ(sink.errors.size(), 2);
    EXPECT_TRUE(sink.errors[1].contains(QStringLiteral("version 2, written by a newer QKV Lab")))
        << sink.errors[1].toStdString();
    EXPECT_TRUE(view()->isShowingExperiment());
    EXPECT_EQ(experiment()->experiment()->folder, QDir(good.path()).absolutePath());
    EXPECT_EQ(experiment()->lossPlot()->graphCount(), 7);
    EXPECT_EQ(cellText(1, ExperimentTable::ValLoss), QStringLiteral("1.5000 ± 0.1414"));
}

TEST_F(TrainingExperimentTab, AMissingRunIsNamedAndTheOtherRunsAreDrawn) {
    writeFakeExperiment(experimentDir.path());
    ASSERT_TRUE(QFile::remove(QDir(experimentDir.path()).filePath(logOf("learned", 1))));
    // No model open: the experiment alone is shown.
    ASSERT_TRUE(window->openExperiment(experimentDir.path()));
    EXPECT_TRUE(sink.errors.isEmpty());
    EXPECT_TRUE(experiment()->isVisible());
    EXPECT_TRUE(experiment()->noticeText().contains(QStringLiteral("learned, seed 1: ")))
        << experiment()->noticeText().toStdString();
    EXPECT_EQ(cellText(0, ExperimentTable::Seeds), QStringLiteral("1 of 2"));
    QCPGraph* lower = experiment()->lossPlot()->graph(0);
    QCPGraph* upper = experiment()->lossPlot()->graph(1);
    ASSERT_EQ(lower->data()->size(), 3);
    for (int i = 0; i < 3; ++i) {  // seed 2 alone: the band closes on its line
        EXPECT_DOUBLE_EQ(lower->data()->at(i)->value, kRuns[1].valLoss[i]);
        EXPECT_DOUBLE_EQ(upper->data()->at(i)->value, kRuns[1].valLoss[i]);
    }
}

TEST_F(TrainingExperimentTab, OpeningAModelReturnsToItsVariants) {
    writeVariantFolder(modelDir(), {QStringLiteral("learned"), 1});
    writeFakeExperiment(experimentDir.path());
    ASSERT_TRUE(window->openExperiment(experimentDir.path()));
    ASSERT_TRUE(view()->isShowingExperiment());
    ASSERT_TRUE(open(QString::fromStdString(modelDir().string())));
    EXPECT_FALSE(view()->isShowingExperiment());
    EXPECT_FALSE(view()->isShowingEmptyState());
    EXPECT_FALSE(fileAction(QStringLiteral("Close Experiment"))->isEnabled());
}

TEST_F(TrainingExperimentTab, TheModelsOwnLogsShowStepZeroAndRelationAccuracy) {
    FixtureRun withProbe{QStringLiteral("learned"), 1};
    withProbe.stepZero = true;
    withProbe.relationAccuracy = true;
    writeVariantFolder(modelDir(), withProbe);
    FixtureRun older{QStringLiteral("shared-qk"), 2};  // an older log: neither
    writeVariantFolder(modelDir().parent_path() / "toy-shared-qk", older);
    ASSERT_TRUE(open(QString::fromStdString(modelDir().string())));
    window->showTab(MainWindow::Tab::Training);

    const nlohmann::json log = fixtureLog(withProbe);
    const int entries = static_cast<int>(log["steps"].size());
    ASSERT_EQ(entries, 6);
    QCustomPlot* loss = view()->lossPlot();
    QCPGraph* train = loss->graph(0);
    QCPGraph* validation = loss->graph(1);
    ASSERT_EQ(validation->data()->size(), entries);
    EXPECT_EQ(validation->data()->at(0)->key, 0);
    EXPECT_DOUBLE_EQ(validation->data()->at(0)->value, log["steps"][0]["val_loss"].get<double>());
    EXPECT_EQ(train->data()->size(), entries - 1);  // step 0 has no training loss
    EXPECT_EQ(train->data()->at(0)->key, 100);

    QCustomPlot* accuracy = view()->accuracyPlot();
    EXPECT_TRUE(accuracy->isVisible());
    ASSERT_EQ(accuracy->graphCount(), 2);
    ASSERT_EQ(accuracy->graph(0)->data()->size(), entries);
    for (int i = 0; i < entries; ++i)
        EXPECT_DOUBLE_EQ(accuracy->graph(0)->data()->at(i)->value,
                         log["steps"][i]["relation_accuracy"].get<double>());
    EXPECT_EQ(accuracy->graph(1)->data()->size(), 0);  // the older log has none
}

}  // namespace
}  // namespace qkv::ui::test
