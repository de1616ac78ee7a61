// The window fits a laptop and keeps its layout still: a long row of tokens or ids wraps or
// scrolls inside it (its minimum width never grows), an emptied sentence moves nothing below
// it, and every control row wraps in a narrow window instead of being cut.
#include <QAbstractScrollArea>
#include <QLineEdit>
#include <QPixmap>
#include <QScrollArea>
#include <QScrollBar>
#include <QTabBar>
#include <QTabWidget>

#include "tests/support/shared_assets.h"
#include "tests/ui/ui_test_support.h"
#include "ui/document/lab_document.h"
#include "ui/views/sentence_bar.h"
#include "ui/window/main_window.h"

namespace qkv::ui::test {
namespace {

QString ids(int count) {
    QString text = QStringLiteral("#");
    for (int i = 0; i < count; ++i) text += QString::number(3 + i) + QStringLiteral(" ");
    return text.trimmed();
}

// Inside a scroll area's viewport: content that scrolls into view.
bool scrolls(const QWidget* w) {
    for (; w && w->parentWidget(); w = w->parentWidget())
        if (auto* area =
                qobject_cast<const QAbstractScrollArea*>(w->parentWidget()->parentWidget());
            area && area->viewport() == w->parentWidget())
            return true;
    return false;
}

// Every visible widget of the window lies inside it, except what scrolls: nothing cut or spilled.
void expectNothingCut(QWidget* window) {
    const QRect inside = window->rect();
    for (QWidget* w : window->findChildren<QWidget*>()) {
        if (!w->isVisible() || w->isWindow() || w->width() == 0 || scrolls(w)) continue;
        const QRect r(w->mapTo(window, QPoint(0, 0)), w->size());
        EXPECT_TRUE(inside.contains(r))
            << w->metaObject()->className() << " " << w->objectName().toStdString() << " at "
            << r.x() << "," << r.y() << " " << r.width() << "x" << r.height();
    }
}

class WindowLayoutTest : public MainWindowTest {
  protected:
    QTabWidget* tabs() { return window->findChild<QTabWidget*>(); }
    int tabsTop() { return tabs()->mapTo(window.get(), QPoint(0, 0)).y(); }
};

TEST_F(WindowLayoutTest, FitsALaptopAndASmallWindow) {
    QKV_REQUIRE_SHARED(shared);
    ASSERT_TRUE(open(QString::fromStdString((shared / "models" / "t5-random-tiny").string())));
    doc().setAttentionKind(AttentionKind::Cross);
    ASSERT_TRUE(type(ids(25)));
    auto* workspace = window->findChild<QScrollArea*>(QStringLiteral("workspaceScroll"));
    ASSERT_TRUE(workspace);
    // A 1366 x 768 laptop leaves 1280 x 720 to a window: everything shows at once. At 640 x 480
    // the control rows wrap (no sideways scrolling) and the workspace scrolls vertically.
    for (const QSize size : {QSize(1280, 720), QSize(640, 480)}) {
        SCOPED_TRACE(std::to_string(size.width()) + "x" + std::to_string(size.height()));
        window->resize(size);
        QTest::qWait(50);
        EXPECT_EQ(window->size(), size);
        EXPECT_FALSE(workspace->horizontalScrollBar()->isVisible());
        if (size.height() >= 720) {
            EXPECT_FALSE(workspace->verticalScrollBar()->isVisible());
        }
        expectNothingCut(window.get());
        keepScreenshot(window.get(),
                       QStringLiteral("window-%1x%2").arg(size.width()).arg(size.height()));
    }
}

// Resized far below its minimum (120 x 90), the window keeps its plots at their own minimum
// inside the scrolling workspace: none is asked to paint at zero size, which QCustomPlot
// reported as "QPainter::begin: Paint device returned engine == 0".
TEST_F(WindowLayoutTest, ATinyWindowPaintsNoPlotAtZeroSize) {
    QKV_REQUIRE_SHARED(shared);
    ASSERT_TRUE(open(QString::fromStdString((shared / "models" / "gpt2-random-tiny").string())));
    ASSERT_TRUE(type(ids(8)));
    static QStringList painterWarnings;
    painterWarnings.clear();
    const QtMessageHandler previous =
        qInstallMessageHandler([](QtMsgType, const QMessageLogContext&, const QString& message) {
            if (message.contains(QStringLiteral("QPainter::begin"))) painterWarnings << message;
        });
    for (int tab = 0; tab < tabs()->count(); ++tab) {
        tabs()->setCurrentIndex(tab);
        window->resize(120, 90);
        QTest::qWait(50);
        window->grab();  // paints every visible widget
        window->resize(1280, 720);
        QTest::qWait(20);
    }
    qInstallMessageHandler(previous);
    EXPECT_TRUE(painterWarnings.isEmpty()) << painterWarnings.join("; ").toStdString();
}

// A long row of ids wraps in the chips (and the plots show fewer labels): the window keeps its
// width, for T5's cross-attention and ModernBERT's 121 ids alike.
TEST_F(WindowLayoutTest, ALongRowOfIdsNeverWidensTheWindow) {
    QKV_REQUIRE_SHARED(shared);
    struct Case {
        const char* model;
        int count;
        bool cross;
    };
    for (const Case& c :
         {Case{"t5-random-tiny", 25, true}, Case{"modernbert-random-tiny", 121, false}}) {
        SCOPED_TRACE(c.model);
        window->resize(1000, 700);
        ASSERT_TRUE(open(QString::fromStdString((shared / "models" / c.model).string())));
        if (c.cross) doc().setAttentionKind(AttentionKind::Cross);
        ASSERT_TRUE(type(ids(c.count)));
        QTest::qWait(50);
        EXPECT_EQ(window->width(), 1000);
        EXPECT_LE(window->minimumSizeHint().width(), 1000);
    }
}

TEST_F(WindowLayoutTest, EmptyingTheSentenceMovesNothingBelowIt) {
    QKV_REQUIRE_SHARED(shared);
    window->resize(1280, 720);
    ASSERT_TRUE(open(QString::fromStdString((shared / "models" / "gpt2-random-tiny").string())));
    ASSERT_TRUE(type(ids(8)));
    const int before = tabsTop();
    QLineEdit* editor = window->sentenceBar()->editor();
    editor->selectAll();
    QTest::keyClick(editor, Qt::Key_Delete);
    ASSERT_TRUE(editor->text().isEmpty());
    ASSERT_TRUE(settle());
    QTest::qWait(50);
    EXPECT_EQ(tabsTop(), before);
    keepScreenshot(window.get(), QStringLiteral("empty-sentence"));
    ASSERT_TRUE(type(ids(8)));
    EXPECT_EQ(tabsTop(), before);
}

}  // namespace
}  // namespace qkv::ui::test
