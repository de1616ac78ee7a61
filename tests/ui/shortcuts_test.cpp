// The window's shortcuts work while the sentence box has focus (at start-up and after typing),
// except the keys a text field needs for its text.
#include <QAction>
#include <QApplication>
#include <QLineEdit>
#include <QTabWidget>
#include <QTimer>

#include "tests/support/shared_assets.h"
#include "tests/ui/ui_test_support.h"
#include "ui/document/lab_document.h"
#include "ui/views/sentence_bar.h"
#include "ui/window/main_window.h"

namespace qkv::ui::test {
namespace {

TEST_F(MainWindowTest, ShortcutsWorkFromTheSentenceBox) {
    QKV_REQUIRE_SHARED(shared);
    ASSERT_TRUE(open(QString::fromStdString((shared / "models" / "gpt2-random-tiny").string())));
    ASSERT_TRUE(type(QStringLiteral("#1 2 3 4")));
    QLineEdit* editor = window->sentenceBar()->editor();
    editor->setFocus();
    ASSERT_TRUE(QTest::qWaitFor([&] { return editor->hasFocus(); }));

    // Ctrl+3 shows the Overview; Alt+2 the scores; PageDown the next layer.
    QTest::keyClick(editor, Qt::Key_3, Qt::ControlModifier);
    EXPECT_EQ(window->findChild<QTabWidget*>()->currentIndex(), 2);
    QTest::keyClick(editor, Qt::Key_2, Qt::AltModifier);
    EXPECT_EQ(doc().mode(), HeatmapMode::Scores);
    QTest::keyClick(editor, Qt::Key_PageDown);
    EXPECT_EQ(doc().layer(), 1);
    // Ctrl+E, which a line edit takes for "end of line": the export dialog opens (and is closed).
    bool dialogOpened = false;
    QTimer::singleShot(200, [&] {
        if (QWidget* dialog = QApplication::activeModalWidget()) {
            dialogOpened = true;
            dialog->close();
        }
    });
    QTest::keyClick(editor, Qt::Key_E, Qt::ControlModifier);
    EXPECT_TRUE(dialogOpened);
    editor->setFocus();
    // The field keeps its editing keys: select all, then typing replaces the text.
    QTest::keyClick(editor, Qt::Key_A, Qt::ControlModifier);
    EXPECT_EQ(editor->selectedText(), editor->text());
    QTest::keyClick(editor, Qt::Key_Left);  // the caret moves; the head stays
    EXPECT_EQ(doc().head(), 0);
}

}  // namespace
}  // namespace qkv::ui::test
