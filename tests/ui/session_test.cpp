// Sessions (*.qkvlab): a round trip of every field through a file and a fresh window, the JSON's
// documented fields, refusals that change nothing, the modified marker and the question before
// closing, and head names in the Head view's title and on the Overview's cells.
#include <QAction>
#include <QCloseEvent>
#include <QComboBox>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLineEdit>
#include <QTemporaryDir>

#include "tests/ui/ui_test_support.h"
#include "ui/plot/metric_matrices.h"
#include "ui/views/compare_view.h"
#include "ui/views/head_view.h"
#include "ui/views/heatmap_widget.h"
#include "ui/views/lines_view.h"
#include "ui/views/overview_view.h"
#include "ui/views/sentence_bar.h"
#include "ui/views/space_view.h"

namespace qkv::ui::test {
namespace {

class SessionTest : public MainWindowTest {
  protected:
    // A state unlike the defaults in every field a session holds.
    void setDistinctState() {
        ASSERT_TRUE(type(kMovie));
        WConfiguration config = WConfiguration::parse("tied-kv");
        config.scaleOutside = true;
        config.maskSelf = true;
        doc().setConfig(config);
        doc().setHead(1, 2);
        doc().setMode(HeatmapMode::Scores);
        doc().setColorScheme({QStringLiteral("magma"), QStringLiteral("purple-white-green")});
        doc().setAnnotation(1, 2, QStringLiteral("induction"));
        doc().setAnnotation(0, 1, QStringLiteral("previous token"));
        window->overviewView()->setShownMetric(HeadMetric::ScoreSymmetry);
        window->compareView()->setSharedScale(false);
        window->linesView()->setAllHeads(true);
        window->showTab(MainWindow::Tab::Compare);
        ASSERT_TRUE(settle());
        doc().setPinnedToken(3);
        ASSERT_TRUE(settle());
        ASSERT_EQ(doc().pinnedToken(), 3);
    }

    QString file(const QString& name) const { return m_dir.filePath(name); }

    QTemporaryDir m_dir;
};

void writeFile(const QString& path, const QByteArray& bytes) {
    QFile f(path);
    ASSERT_TRUE(f.open(QIODevice::WriteOnly));
    f.write(bytes);
}

QJsonObject readJson(const QString& path) {
    QFile f(path);
    EXPECT_TRUE(f.open(QIODevice::ReadOnly));
    return QJsonDocument::fromJson(f.readAll()).object();
}

TEST_F(SessionTest, RoundTripRestoresEveryField) {
    QKV_REQUIRE_SHARED(shared);
    const QString folder = modelPath(shared, "gpt2-random-tiny");
    ASSERT_TRUE(open(folder));
    setDistinctState();
    const Session saved = window->currentSession();
    const QString path = file(QStringLiteral("study.qkvlab"));
    ASSERT_TRUE(window->saveSession(path)) << sink.errors.join("; ").toStdString();
    EXPECT_FALSE(window->isWindowModified());
    EXPECT_TRUE(window->windowTitle().startsWith(QStringLiteral("study.qkvlab")));

    // The file holds the documented fields.
    const QJsonObject json = readJson(path);
    EXPECT_EQ(json["format"].toString(), QStringLiteral("qkvlab-session"));
    EXPECT_EQ(json["version"].toInt(), 1);
    EXPECT_EQ(json["model"]["folder"].toString(), folder);
    EXPECT_EQ(json["text"].toString(), kMovie);
    EXPECT_EQ(json["config"]["name"].toString(), QStringLiteral("tied-kv"));
    EXPECT_TRUE(json["config"]["scale_outside"].toBool());
    EXPECT_TRUE(json["config"]["mask_self"].toBool());
    EXPECT_EQ(json["view"]["tab"].toString(), QStringLiteral("compare"));
    EXPECT_EQ(json["view"]["layer"].toInt(), 1);
    EXPECT_EQ(json["view"]["head"].toInt(), 2);
    EXPECT_EQ(json["view"]["mode"].toString(), QStringLiteral("scores"));
    EXPECT_EQ(json["view"]["overview_metric"].toString(), QStringLiteral("score-symmetry"));
    EXPECT_FALSE(json["view"]["compare_shared_scale"].toBool());
    EXPECT_TRUE(json["view"]["lines_all_heads"].toBool());
    EXPECT_EQ(json["pinned_token"].toInt(), 3);
    EXPECT_EQ(json["colors"]["sequential"].toString(), QStringLiteral("magma"));
    EXPECT_EQ(json["colors"]["diverging"].toString(), QStringLiteral("purple-white-green"));
    const QJsonArray annotations = json["annotations"].toArray();
    ASSERT_EQ(annotations.size(), 2);
    EXPECT_EQ(annotations[1]["name"].toString(), QStringLiteral("induction"));
    EXPECT_EQ(annotations[1]["layer"].toInt(), 1);
    EXPECT_EQ(annotations[1]["attention"].toString(), QStringLiteral("self"));

    // A fresh window on another model opens the session: everything comes back.
    window.reset();
    QSettings().clear();
    window = std::make_unique<MainWindow>();
    window->setMessageSink(&sink);
    window->show();
    ASSERT_TRUE(open(modelPath(shared, "stories260K")));
    ASSERT_TRUE(type(QStringLiteral("Once upon a time")));
    ASSERT_TRUE(window->openSession(path));
    ASSERT_TRUE(
        waitFor([&] { return doc().model() && doc().model()->name() == "gpt2-random-tiny"; }));
    ASSERT_TRUE(settle());
    EXPECT_TRUE(sink.errors.isEmpty()) << sink.errors.join("; ").toStdString();
    const Session reopened = window->currentSession();
    EXPECT_EQ(reopened.model, saved.model);
    EXPECT_EQ(reopened.text, kMovie);
    EXPECT_EQ(window->sentenceBar()->editor()->text(), kMovie);
    EXPECT_EQ(reopened.config, saved.config);
    EXPECT_EQ(reopened.tab, QStringLiteral("compare"));
    EXPECT_EQ(window->currentTab(), MainWindow::Tab::Compare);
    EXPECT_EQ(doc().layer(), 1);
    EXPECT_EQ(doc().head(), 2);
    EXPECT_EQ(doc().mode(), HeatmapMode::Scores);
    EXPECT_EQ(doc().pinnedToken(), 3);
    EXPECT_EQ(doc().colorScheme().sequential, QStringLiteral("magma"));
    EXPECT_EQ(doc().colorScheme().diverging, QStringLiteral("purple-white-green"));
    EXPECT_EQ(doc().annotation(1, 2), QStringLiteral("induction"));
    EXPECT_EQ(doc().annotation(0, 1), QStringLiteral("previous token"));
    EXPECT_EQ(window->overviewView()->shownMetric(), HeadMetric::ScoreSymmetry);
    EXPECT_FALSE(window->compareView()->sharedScale());
    EXPECT_TRUE(window->linesView()->allHeads());
    EXPECT_TRUE(reopened == saved);
    EXPECT_FALSE(window->isWindowModified());
    EXPECT_EQ(window->sessionPath(), path);
}

TEST_F(SessionTest, CorruptOrNewerFilesAreRefusedAndChangeNothing) {
    QKV_REQUIRE_SHARED(shared);
    const QString folder = modelPath(shared, "gpt2-random-tiny");
    ASSERT_TRUE(open(folder));
    setDistinctState();
    const Session before = window->currentSession();

    const QString corrupt = file(QStringLiteral("corrupt.qkvlab"));
    writeFile(corrupt, "{\"format\": \"qkvlab-session\", \"version\": 1, \"model\": ");
    EXPECT_FALSE(window->openSession(corrupt));
    ASSERT_EQ(sink.errors.size(), 1);
    EXPECT_TRUE(sink.errors[0].contains(QStringLiteral("invalid JSON")))
        << sink.errors[0].toStdString();
    EXPECT_TRUE(sink.errors[0].contains(corrupt));

    QJsonObject newer = QJsonDocument::fromJson(sessionToJson(before)).object();
    newer["version"] = 2;
    const QString newerPath = file(QStringLiteral("newer.qkvlab"));
    writeFile(newerPath, QJsonDocument(newer).toJson());
    EXPECT_FALSE(window->openSession(newerPath));
    ASSERT_EQ(sink.errors.size(), 2);
    EXPECT_TRUE(sink.errors[1].contains(QStringLiteral("newer QKV Lab")))
        << sink.errors[1].toStdString();

    QJsonObject other = newer;
    other["version"] = 1;
    other["format"] = QStringLiteral("something-else");
    const QString otherPath = file(QStringLiteral("other.qkvlab"));
    writeFile(otherPath, QJsonDocument(other).toJson());
    EXPECT_FALSE(window->openSession(otherPath));
    ASSERT_EQ(sink.errors.size(), 3);
    EXPECT_TRUE(sink.errors[2].contains(QStringLiteral("\"format\"")))
        << sink.errors[2].toStdString();

    QJsonObject missing = other;
    missing["format"] = QStringLiteral("qkvlab-session");
    missing["model"] = QJsonObject{{QStringLiteral("folder"), file(QStringLiteral("gone"))}};
    const QString missingPath = file(QStringLiteral("missing.qkvlab"));
    writeFile(missingPath, QJsonDocument(missing).toJson());
    EXPECT_FALSE(window->openSession(missingPath));
    ASSERT_EQ(sink.errors.size(), 4);
    EXPECT_TRUE(sink.errors[3].contains(file(QStringLiteral("gone"))))
        << sink.errors[3].toStdString();

    ASSERT_TRUE(settle());
    EXPECT_TRUE(window->currentSession() == before);
    EXPECT_TRUE(window->sessionPath().isEmpty());
}

TEST_F(SessionTest, ModifiedMarkerAndTheQuestionBeforeClosing) {
    QKV_REQUIRE_SHARED(shared);
    ASSERT_TRUE(open(modelPath(shared, "gpt2-random-tiny")));
    ASSERT_TRUE(type(kMovie));
    EXPECT_FALSE(window->isWindowModified());  // nothing but named heads is lost without a file
    doc().setAnnotation(0, 0, QStringLiteral("first"));
    EXPECT_TRUE(window->isWindowModified());

    ASSERT_TRUE(window->saveSession(file(QStringLiteral("marker.qkvlab"))));
    EXPECT_FALSE(window->isWindowModified());
    doc().setHead(1, 1);
    EXPECT_TRUE(window->isWindowModified());
    doc().setHead(0, 0);
    EXPECT_FALSE(window->isWindowModified());  // back to what the file holds
    window->overviewView()->setShownMetric(HeadMetric::OvCopying);
    EXPECT_TRUE(window->isWindowModified());

    // Cancel keeps the window open; Discard lets it close.
    sink.unsavedAnswer = UnsavedChoice::Cancel;
    EXPECT_FALSE(window->close());
    EXPECT_EQ(sink.questions.size(), 1);
    EXPECT_TRUE(sink.questions[0].contains(QStringLiteral("marker.qkvlab")));
    EXPECT_TRUE(window->isVisible());
    sink.unsavedAnswer = UnsavedChoice::Save;
    EXPECT_TRUE(window->close());
    EXPECT_EQ(sink.questions.size(), 2);
    const QJsonObject json = readJson(file(QStringLiteral("marker.qkvlab")));
    EXPECT_EQ(json["view"]["overview_metric"].toString(),
              headMetricInfo(HeadMetric::OvCopying).key);
}

TEST_F(SessionTest, OpeningAnotherModelAsksFirst) {
    QKV_REQUIRE_SHARED(shared);
    ASSERT_TRUE(open(modelPath(shared, "gpt2-random-tiny")));
    ASSERT_TRUE(type(kMovie));
    doc().setAnnotation(0, 0, QStringLiteral("first"));
    sink.unsavedAnswer = UnsavedChoice::Cancel;
    window->openModel(modelPath(shared, "stories260K"));
    EXPECT_EQ(sink.questions.size(), 1);
    EXPECT_FALSE(doc().isLoading());
    EXPECT_EQ(doc().model()->name(), "gpt2-random-tiny");
    EXPECT_EQ(doc().annotation(0, 0), QStringLiteral("first"));
}

TEST_F(SessionTest, HeadNamesShowInTheHeadTitleAndOnTheOverview) {
    QKV_REQUIRE_SHARED(shared);
    ASSERT_TRUE(open(modelPath(shared, "gpt2-random-tiny")));
    ASSERT_TRUE(type(kMovie));
    doc().setHead(1, 2);
    ASSERT_TRUE(settle());
    // Named as a user would: typed into the Head view's name line, then Enter.
    QLineEdit* name = window->headView()->nameEditor();
    name->setFocus();
    QTest::keyClicks(name, QStringLiteral("induction"));
    QTest::keyClick(name, Qt::Key_Return);
    EXPECT_EQ(doc().annotation(1, 2), QStringLiteral("induction"));
    ASSERT_TRUE(settle());
    EXPECT_EQ(window->headView()->heatmap()->figure().spec().title,
              QStringLiteral("Layer 1 · Head 2 — induction · learned · attention"));

    window->showTab(MainWindow::Tab::Overview);
    ASSERT_TRUE(settle());
    HeatmapWidget* overview = window->overviewView()->heatmap();
    ASSERT_TRUE(overview->isShowingFigure());
    const auto& notes = overview->figure().spec().panels.at(0).notes;
    ASSERT_EQ(notes.size(), 1u);
    EXPECT_EQ(notes[0].row, 1);
    EXPECT_EQ(notes[0].col, 2);
    EXPECT_EQ(notes[0].text, QStringLiteral("induction"));
    const QPoint cell = overview->figure().cellCenter({0, 1, 2});
    QTest::mouseMove(overview->plot(), cell);
    EXPECT_TRUE(
        overview->lastToolTip().contains(QStringLiteral("Layer 1 · Head 2</b> — <i>induction</i>")))
        << overview->lastToolTip().toStdString();

    // Another head shows its own (empty) name; clearing the name removes it everywhere.
    doc().setHead(0, 0);
    EXPECT_TRUE(name->text().isEmpty());
    doc().setAnnotation(1, 2, QString());
    ASSERT_TRUE(settle());
    EXPECT_TRUE(overview->figure().spec().panels.at(0).notes.empty());
}

}  // namespace
}  // namespace qkv::ui::test
