// Exported figures say what they show: the provenance record survives a round trip through each
// format's metadata (PNG text chunks, SVG <metadata>, PDF document information and XMP), the
// record's JSON round-trips, a file without one reads as none, and the sidecar data files hold
// the drawn matrix.
#include <gtest/gtest.h>
#include <qcustomplot.h>

#include <QDir>
#include <QFile>
#include <QImage>
#include <QProcess>
#include <QStandardPaths>
#include <QSvgRenderer>
#include <QTemporaryDir>
#include <cmath>
#include <limits>

#include "core/util/error.h"
#include "tests/support/shared_assets.h"
#include "ui/export/figure_data.h"
#include "ui/export/figure_export.h"
#include "ui/export/figure_provenance_reader.h"
#include "ui/export/plot_provenance.h"
#include "ui/export/weights_fingerprint.h"
#include "ui/plot/heatmap_figure.h"

namespace qkv::ui::test {
namespace {

// Every field set, with text that needs escaping in XML, JSON and PDF strings.
FigureProvenance fullRecord() {
    FigureProvenance p;
    p.model = "org/tiny-model";
    p.revision = std::string(40, 'a');
    p.weightsHeaderSha256 = std::string(64, 'f');
    p.weightsFiles = {"model-00001-of-00002.safetensors", "model-00002-of-00002.safetensors"};
    p.text = "Ünïcode <b>&</b> \"quotes\" 'and' (parens) — 猫";
    p.ids = {1, 2, 3};
    p.targetText = "Le chat";
    p.targetIds = {0, 4, 5};
    p.block = "cross";
    p.layer = 1;
    p.head = 2;
    p.config = "shared-qk";
    p.scaleOutside = false;
    p.maskSelf = true;
    p.normalizeKeys = false;
    p.view = "head";
    p.mode = "attention";
    p.colorMap = "cividis";
    p.appVersion = "9.9.9";
    p.exportedAt = "2025-01-31T12:34:56Z";
    return p;
}

// One panel of 3 x 3 values, one of them masked.
FigureSpec smallSpec() {
    HeatmapData data;
    data.rows = data.cols = 3;
    data.values = {0.1f, std::numeric_limits<double>::quiet_NaN(), 0.5, 0.25, 0.75, 0, 1, 2, 3};
    data.rowLabels = data.colLabels = QStringList{"a", "b,c", "d"};
    data.high = 3;
    FigureSpec spec;
    spec.title = QStringLiteral("test");
    spec.panels.push_back({data, QStringLiteral("panel")});
    return spec;
}

class FigureProvenanceTest : public testing::Test {
  protected:
    void SetUp() override {
        plot.resize(500, 400);
        figure.show(smallSpec());
        setPlotProvenance(&plot, fullRecord());
    }
    QString path(const QString& name) const { return QDir(dir.path()).filePath(name); }

    QTemporaryDir dir;
    QCustomPlot plot;
    HeatmapFigure figure{&plot};
};

TEST(FigureProvenanceJson, RoundTripsEveryField) {
    const FigureProvenance p = fullRecord();
    EXPECT_EQ(FigureProvenance::fromJson(nlohmann::json::parse(p.toJson().dump())), p);
    EXPECT_EQ(FigureProvenance::fromJson(nlohmann::json::object()), FigureProvenance{});
    EXPECT_FALSE(FigureProvenance{}.toJson().contains("layer")) << "unknown fields are left out";
    EXPECT_THROW(FigureProvenance::fromJson({{"layer", "one"}}), Error);
    EXPECT_EQ(p.toJson()["options"]["mask_self"], true);
}

TEST_F(FigureProvenanceTest, EachFormatCarriesTheRecord) {
    FigureProvenance expected = fullRecord();
    expected.divergingColorMap.reset();  // the figure draws no diverging panel
    for (const char* name : {"x.png", "x.svg", "x.pdf"}) {
        SCOPED_TRACE(name);
        exportFigure(figure, path(name), QSize(500, 400));
        const auto read = readFigureProvenance(path(name));
        ASSERT_TRUE(read.has_value());
        FigureProvenance got = *read;
        EXPECT_EQ(got.appVersion, qkvlabVersion()) << "the exporter stamps its own version";
        EXPECT_EQ(got.exportedAt, expected.exportedAt) << "a time already set is kept";
        got.appVersion = expected.appVersion;
        EXPECT_EQ(got, expected);
    }
    // The format's own fields, for readers that know nothing of ours.
    const QImage png(path("x.png"));
    EXPECT_EQ(png.text("Software"),
              QStringLiteral("QKV Lab ") + QString::fromStdString(qkvlabVersion()));
    EXPECT_EQ(png.text("Creation Time"), QStringLiteral("2025-01-31T12:34:56Z"));
    EXPECT_TRUE(png.text("Description").contains(QStringLiteral("layer 1, head 2")));
    EXPECT_FALSE(QImage(path("x.png")).isNull());
    QFile svgFile(path("x.svg"));
    ASSERT_TRUE(svgFile.open(QIODevice::ReadOnly));
    const QByteArray svg = svgFile.readAll();
    EXPECT_TRUE(QSvgRenderer(svg).isValid());
    EXPECT_TRUE(svg.contains("<metadata><qkvlab:provenance xmlns:qkvlab="));
    EXPECT_TRUE(svg.contains("<title>QKV Lab: attention of layer 1, head 2"));
}

TEST_F(FigureProvenanceTest, PdfInfoShowsTitleSubjectAndKeywords) {
    exportFigure(figure, path("x.pdf"), QSize(500, 400));
    const QString pdfinfo = QStandardPaths::findExecutable(QStringLiteral("pdfinfo"));
    if (pdfinfo.isEmpty()) GTEST_SKIP() << "pdfinfo (poppler-utils) is not installed";
    QProcess run;
    run.start(pdfinfo, {path("x.pdf")});
    ASSERT_TRUE(run.waitForFinished(30000));
    const QString out = QString::fromUtf8(run.readAllStandardOutput());
    EXPECT_EQ(run.exitCode(), 0) << run.readAllStandardError().toStdString();
    EXPECT_TRUE(
        out.contains(QStringLiteral("Title:           QKV Lab: attention of layer 1, head 2")))
        << out.toStdString();
    EXPECT_TRUE(out.contains(QStringLiteral("Subject:         org/tiny-model@aaaaaaaaaaaa")))
        << out.toStdString();
    EXPECT_TRUE(out.contains(QStringLiteral("Keywords:        QKV Lab, org/tiny-model")))
        << out.toStdString();
    EXPECT_TRUE(out.contains(QStringLiteral("Creator:         QKV Lab"))) << out.toStdString();
    EXPECT_TRUE(out.contains(QStringLiteral("Pages:           1"))) << out.toStdString();
}

TEST_F(FigureProvenanceTest, AFileWithoutARecordReadsAsNone) {
    QImage plain(4, 4, QImage::Format_RGB32);
    plain.fill(Qt::white);
    ASSERT_TRUE(plain.save(path("plain.png")));
    EXPECT_FALSE(readFigureProvenance(path("plain.png")).has_value());
    QFile text(path("notes.txt"));
    ASSERT_TRUE(text.open(QIODevice::WriteOnly));
    text.write("hello");
    text.close();
    EXPECT_THROW(readFigureProvenance(path("notes.txt")), Error);
    EXPECT_THROW(readFigureProvenance(path("missing.png")), Error);
}

TEST_F(FigureProvenanceTest, DataFilesHoldTheDrawnMatrix) {
    const QStringList written = writeFigureData(figure.spec(), fullRecord(), path("fig.png"));
    EXPECT_EQ(written, (QStringList{path("fig.json"), path("fig.csv")}));
    QFile json(path("fig.json"));
    ASSERT_TRUE(json.open(QIODevice::ReadOnly));
    const auto doc = nlohmann::json::parse(json.readAll().toStdString());
    EXPECT_EQ(FigureProvenance::fromJson(doc["provenance"]), fullRecord());
    EXPECT_EQ(doc["rows"], (std::vector<std::string>{"a", "b,c", "d"}));
    EXPECT_EQ(doc["values"][0][0].dump(), "0.1") << "a float printed as the float it is";
    EXPECT_TRUE(doc["values"][0][1].is_null()) << "a masked cell";
    EXPECT_EQ(doc["values"][2][2], 3.0);
    QFile csv(path("fig.csv"));
    ASSERT_TRUE(csv.open(QIODevice::ReadOnly));
    EXPECT_EQ(csv.readAll(),
              QByteArray(",a,\"b,c\",d\na,0.1,,0.5\n\"b,c\",0.25,0.75,0\nd,1,2,3\n"));
}

}  // namespace
}  // namespace qkv::ui::test

namespace qkv::ui {
namespace {

// A GGUF file's figures name it and carry the SHA-256 of its header (metadata and tensor infos),
// which differs between two quantisations of one model.
TEST(WeightsFingerprintGguf, NamesTheFileAndHashesItsHeader) {
    QKV_REQUIRE_SHARED_GGUF(shared);
    const auto folder = shared / "gguf" / "llama-gguf-tiny";
    const WeightsFingerprint q4 = weightsFingerprint(folder / "llama-gguf-tiny-Q4_K_M.gguf");
    const WeightsFingerprint f32 = weightsFingerprint(folder / "llama-gguf-tiny-F32.gguf");
    EXPECT_EQ(q4.files, std::vector<std::string>{"llama-gguf-tiny-Q4_K_M.gguf"});
    EXPECT_EQ(q4.headerSha256.size(), 64u);
    EXPECT_NE(q4.headerSha256, f32.headerSha256);
}

}  // namespace
}  // namespace qkv::ui
