// Export: the current view to PNG, SVG and PDF, failures leave no file, every head to a folder,
// and `qkvlab-cli render`'s code path draws the same picture as the app.
#include <QClipboard>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QGuiApplication>
#include <QImage>
#include <QSignalSpy>
#include <QSvgRenderer>
#include <QTemporaryDir>
#include <nlohmann/json.hpp>

#include "core/backend/backend.h"
#include "tests/ui/ui_test_support.h"
#include "ui/compute/token_list.h"
#include "ui/export/export_all_job.h"
#include "ui/render/head_render.h"
#include "ui/views/head_view.h"
#include "ui/views/heatmap_widget.h"

namespace qkv::ui::test {
namespace {

QByteArray fileStart(const QString& path, int bytes) {
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.read(bytes) : QByteArray();
}

class ExportTest : public MainWindowTest {
  protected:
    void openMovie() {
        const auto shared = ::qkv::test::sharedDir();
        ASSERT_TRUE(shared);
        ASSERT_TRUE(open(modelPath(*shared, "gpt2-random-tiny")));
        ASSERT_TRUE(type(kMovie));
    }
    QTemporaryDir dir;
};

TEST_F(ExportTest, EveryViewExportsToPngSvgAndPdf) {
    QKV_REQUIRE_SHARED(shared);
    openMovie();
    for (auto tab : {MainWindow::Tab::Head, MainWindow::Tab::Compare, MainWindow::Tab::Overview}) {
        window->showTab(tab);
        ASSERT_TRUE(settle());
        const QString base = QDir(dir.path()).filePath(QStringLiteral("view%1").arg(int(tab)));
        const QSize size = window->exportSize();

        ASSERT_TRUE(window->exportCurrentView(base + ".png"))
            << sink.errors.join("; ").toStdString();
        QImage png(base + ".png");
        ASSERT_FALSE(png.isNull());
        EXPECT_EQ(png.size(), size * kPngScale);

        ASSERT_TRUE(window->exportCurrentView(base + ".svg"));
        QSvgRenderer svg(base + ".svg");
        EXPECT_TRUE(svg.isValid());
        EXPECT_EQ(svg.viewBox().size(), size);

        ASSERT_TRUE(window->exportCurrentView(base + ".pdf"));
        EXPECT_EQ(fileStart(base + ".pdf", 5), QByteArray("%PDF-"));
    }
    EXPECT_TRUE(sink.errors.isEmpty());
    // The on-screen layout is back after exporting at another size.
    EXPECT_TRUE(window->headView()->heatmap()->isShowingFigure());
}

// File ▸ Also Save the Data: the Head view's matrix, as drawn, beside the figure; off, no files.
TEST_F(ExportTest, AlsoSaveTheDataWritesTheDrawnMatrixBesideTheFigure) {
    QKV_REQUIRE_SHARED(shared);
    openMovie();
    window->showTab(MainWindow::Tab::Head);
    ASSERT_TRUE(settle());
    QAction* toggle = nullptr;
    for (QAction* action : window->findChildren<QAction*>())
        if (action->text().contains(QStringLiteral("Also Save the"))) toggle = action;
    ASSERT_NE(toggle, nullptr);
    toggle->setChecked(false);
    const QString plain = QDir(dir.path()).filePath(QStringLiteral("plain.png"));
    ASSERT_TRUE(window->exportCurrentView(plain));
    EXPECT_FALSE(QFileInfo::exists(QDir(dir.path()).filePath(QStringLiteral("plain.json"))));

    toggle->setChecked(true);
    const QString figure = QDir(dir.path()).filePath(QStringLiteral("head.svg"));
    ASSERT_TRUE(window->exportCurrentView(figure)) << sink.errors.join("; ").toStdString();
    toggle->setChecked(false);  // the setting outlives the test otherwise
    QFile file(QDir(dir.path()).filePath(QStringLiteral("head.json")));
    ASSERT_TRUE(file.open(QIODevice::ReadOnly));
    const auto doc = nlohmann::json::parse(file.readAll().toStdString());
    EXPECT_TRUE(QFileInfo::exists(QDir(dir.path()).filePath(QStringLiteral("head.csv"))));
    const HeatmapData& drawn = window->headView()->heatmap()->figure().spec().panels[0].data;
    ASSERT_EQ(doc["values"].size(), static_cast<size_t>(drawn.rows));
    for (int i = 0; i < drawn.rows; ++i)
        for (int j = 0; j <= i; ++j)  // causal: the cells above the diagonal are masked
            EXPECT_NEAR(doc["values"][i][j].get<double>(), drawn.at(i, j), 1e-6);
    EXPECT_EQ(doc["provenance"]["layer"], window->document().layer());
}

TEST_F(ExportTest, CopiesTheViewToTheClipboard) {
    QKV_REQUIRE_SHARED(shared);
    openMovie();
    QTest::keyClick(window.get(), Qt::Key_C, Qt::ControlModifier | Qt::ShiftModifier);
    const QImage image = QGuiApplication::clipboard()->image();
    ASSERT_FALSE(image.isNull());
    EXPECT_EQ(image.size(), window->exportSize() * kPngScale);
}

TEST_F(ExportTest, UnwritableFolderGivesAnErrorAndLeavesNoFile) {
    QKV_REQUIRE_SHARED(shared);
    openMovie();
    // A regular file where the folder should be: no process, root included, can write there.
    const QString blocker = QDir(dir.path()).filePath(QStringLiteral("not-a-folder"));
    QFile file(blocker);
    ASSERT_TRUE(file.open(QIODevice::WriteOnly));
    file.close();
    const QString target = blocker + QStringLiteral("/figure.png");
    EXPECT_FALSE(window->exportCurrentView(target));
    ASSERT_EQ(sink.errors.size(), 1);
    EXPECT_TRUE(sink.errors[0].startsWith(QStringLiteral("Export failed")));
    EXPECT_FALSE(QFileInfo::exists(target));
    EXPECT_EQ(QDir(dir.path()).entryList(QDir::Files), QStringList{QStringLiteral("not-a-folder")});

    EXPECT_FALSE(window->exportCurrentView(QDir(dir.path()).filePath("figure.bmp")));
    EXPECT_TRUE(sink.errors.last().contains(QStringLiteral("unknown image type")));
}

TEST_F(ExportTest, ExportAllHeadsWritesAnImagePerHeadAndTheMetrics) {
    QKV_REQUIRE_SHARED(shared);
    openMovie();
    const QString folder = QDir(dir.path()).filePath(QStringLiteral("all"));
    ExportAllJob* job = window->exportAllHeads(folder, ImageFormat::Png);
    QSignalSpy finished(job, &ExportAllJob::finished);
    QSignalSpy progress(job, &ExportAllJob::progressChanged);
    ASSERT_TRUE(finished.wait(30000));
    EXPECT_TRUE(finished.at(0).at(0).toBool()) << finished.at(0).at(1).toString().toStdString();
    const int heads = doc().model()->architecture().layers * doc().model()->architecture().heads;
    EXPECT_EQ(progress.last().at(0).toInt(), heads + 1);
    const QStringList files = QDir(folder).entryList(QDir::Files, QDir::Name);
    EXPECT_EQ(files.size(), heads + 1);
    EXPECT_TRUE(files.contains(ExportAllJob::fileName(1, 3, ImageFormat::Png)));
    QFile json(QDir(folder).filePath(QStringLiteral("metrics.json")));
    ASSERT_TRUE(json.open(QIODevice::ReadOnly));
    const auto doc = nlohmann::json::parse(json.readAll().toStdString());
    EXPECT_EQ(doc["model"], "gpt2-random-tiny");
    EXPECT_EQ(doc["tokens"].size(), 8u);
    EXPECT_EQ(doc["metrics"]["layers"].size(), 2u);
    EXPECT_TRUE(sink.errors.isEmpty());
}

TEST_F(ExportTest, ExportAllCanBeCancelledAndReportsFailures) {
    QKV_REQUIRE_SHARED(shared);
    openMovie();
    ExportAllJob* job =
        window->exportAllHeads(QDir(dir.path()).filePath("cancelled"), ImageFormat::Svg);
    QSignalSpy finished(job, &ExportAllJob::finished);
    QObject::connect(job, &ExportAllJob::progressChanged, job, [job](int done, int) {
        if (done == 2) job->cancel();
    });
    ASSERT_TRUE(finished.wait(30000));
    EXPECT_FALSE(finished.at(0).at(0).toBool());
    EXPECT_TRUE(finished.at(0).at(1).toString().isEmpty());
    EXPECT_EQ(QDir(dir.path()).filePath("cancelled").isEmpty(), false);
    EXPECT_EQ(QDir(QDir(dir.path()).filePath("cancelled")).entryList(QDir::Files).size(), 2);

    QFile blocker(QDir(dir.path()).filePath("file"));
    ASSERT_TRUE(blocker.open(QIODevice::WriteOnly));
    blocker.close();
    ExportAllJob* failing = window->exportAllHeads(blocker.fileName() + "/sub", ImageFormat::Png);
    QSignalSpy failed(failing, &ExportAllJob::finished);
    ASSERT_TRUE(failed.wait(30000));
    EXPECT_FALSE(failed.at(0).at(0).toBool());
    ASSERT_EQ(sink.errors.size(), 1);
    EXPECT_TRUE(sink.errors[0].contains(QStringLiteral("Cannot create the folder")));
}

TEST_F(ExportTest, HeadlessRenderDrawsTheSamePictureAsTheApp) {
    QKV_REQUIRE_SHARED(shared);
    openMovie();
    doc().setHead(1, 2);
    doc().setMode(HeatmapMode::Asymmetry);
    ASSERT_TRUE(settle());
    const QSize size(900, 760);
    const QString app = QDir(dir.path()).filePath("app.png");
    window->showTab(MainWindow::Tab::Head);
    // What File ▸ Export does with the Head tab, at a size the CLI is given too.
    exportFigure(window->headView()->heatmap()->figure(), app, size);

    const auto model = Model::open(modelPath(shared, "gpt2-random-tiny").toStdString());
    auto backend = createCpuBackend();
    HeadRenderRequest request;
    request.tokens = tokenizeForModel(*model, kMovie).tokens;
    request.layer = 1;
    request.head = 2;
    request.mode = HeatmapMode::Asymmetry;
    request.size = size;
    const QString cli = QDir(dir.path()).filePath("cli.png");
    renderHeadToFile(*model, *backend, request, cli);
    const QImage a(app), b(cli);
    ASSERT_FALSE(a.isNull());
    EXPECT_EQ(a.size(), size * kPngScale);
    EXPECT_TRUE(a == b) << "the CLI's picture differs from the app's";
}

}  // namespace
}  // namespace qkv::ui::test
