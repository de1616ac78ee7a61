// The Atlas tab on an atlas of a shared model: the grid is the atlas's means, a head's cell lists
// its best examples, activating one opens its ids in the Head view at its query (opening the
// atlas's model first), the tab exports, and a file that is no atlas is named.
#include "ui/views/atlas_view.h"

#include <QFile>
#include <QTableWidget>
#include <QTemporaryDir>

#include "core/report/atlas_job.h"
#include "tests/ui/ui_test_support.h"
#include "ui/views/heatmap_widget.h"

namespace qkv::ui::test {
namespace {

// The atlas of a few sentences that repeat one another (duplicate and induction cells).
QString writeAtlas(const std::filesystem::path& folder, const QString& out) {
    auto model = Model::open(folder);
    auto backend = createCpuBackend();
    AtlasCorpus corpus;
    corpus.name = "sentences";
    corpus.digest = "sentences";
    for (int i = 0; i < 12; ++i)
        corpus.documents.push_back(kMovie.toStdString() + " The film was a hit" +
                                   std::string(i % 3, '!') + " The movie was a box office bomb.");
    AtlasRunOptions options;
    options.configurations = {"shared-qk"};
    const auto file = AtlasFile::openForRun(
        out.toStdString(), atlasProvenance(*model, folder.string(), corpus, options));
    runAtlas(*model, *backend, corpus.documents, *file, options);
    return out;
}

TEST_F(MainWindowTest, AtlasTabShowsTheScoresAndOpensAnExampleInTheHeadView) {
    QKV_REQUIRE_SHARED(shared);
    const QTemporaryDir dir;
    const auto folder = shared / "models" / "gpt2-random-tiny";
    const QString path = writeAtlas(folder, dir.filePath(QStringLiteral("sentences.atlas")));
    ASSERT_TRUE(window->openAtlas(path)) << sink.errors.join("; ").toStdString();
    EXPECT_EQ(window->currentTab(), MainWindow::Tab::Atlas);
    AtlasView* view = window->atlasView();
    view->setShownScore(QStringLiteral("previous_token"));
    ASSERT_TRUE(waitFor([&] { return view->heatmap()->isShowingFigure(); }));
    const HeadAtlas& atlas = *view->atlas();
    const int score = atlas.scoreIndex("previous_token");
    for (int l = 0; l < atlas.layers(); ++l)
        for (int h = 0; h < atlas.heads(l); ++h)
            EXPECT_DOUBLE_EQ(view->heatmap()->figure().shownValue({0, l, h}),
                             *atlas.tally(l, h, score).mean());

    // A head's cell: its best examples, best first, each with its context.
    view->selectHead(1, 1);
    ASSERT_TRUE(waitFor([&] { return view->examplesTable()->rowCount() == 5; }));
    const auto& top = atlas.tally(1, 1, score).top;
    EXPECT_EQ(view->examplesTable()->item(0, 1)->text(), QString::number(top[0].value, 'f', 4));
    EXPECT_TRUE(view->examplesTable()->item(0, 4)->text().contains(u'«'));
    keepScreenshot(window.get(), QStringLiteral("atlas-tab"));

    // The tab exports its grid.
    const QString png = dir.filePath(QStringLiteral("atlas.png"));
    ASSERT_TRUE(window->exportCurrentView(png)) << sink.errors.join("; ").toStdString();
    EXPECT_GT(QFile(png).size(), 1000);

    // No model is open: activating the example opens the atlas's, then the example.
    ASSERT_EQ(doc().model(), nullptr);
    view->activateExample(0);
    ASSERT_TRUE(waitFor([&] {
        return doc().model() && window->currentTab() == MainWindow::Tab::Head;
    })) << sink.errors.join("; ").toStdString();
    ASSERT_TRUE(settle());
    const AtlasSequence& sequence = atlas.exampleSequences().at({top[0].document, top[0].first});
    QStringList ids;
    for (int id : sequence.ids) ids << QString::number(id);
    EXPECT_EQ(doc().text(), QStringLiteral("#") + ids.join(u' '));
    EXPECT_EQ(doc().layer(), 1);
    EXPECT_EQ(doc().head(), 1);
    EXPECT_EQ(doc().pinnedToken(), top[0].query);
    // The Head view's row of the query is the atlas's example: its previous-token share.
    const RowMatrixXf& a = doc().snapshot()->trace->probabilities(1, 1);
    EXPECT_NEAR(a(top[0].query, top[0].query - 1) / a.row(top[0].query).sum(), top[0].value,
                1e-6);  // float32 rows, summed in another order

    // A file that is no atlas: named, and the tab keeps what it showed.
    const QString bad = dir.filePath(QStringLiteral("notes.txt"));
    QFile text(bad);
    ASSERT_TRUE(text.open(QIODevice::WriteOnly));
    text.write("hello");
    text.close();
    EXPECT_FALSE(window->openAtlas(bad));
    ASSERT_FALSE(sink.errors.isEmpty());
    EXPECT_TRUE(sink.errors.last().contains(QStringLiteral("not a QKV Lab atlas")))
        << sink.errors.last().toStdString();
    EXPECT_EQ(view->atlasPath(), path);
}

}  // namespace
}  // namespace qkv::ui::test
