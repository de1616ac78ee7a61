// The status bar says what went wrong with a sentence only while it is wrong: the next result
// clears the error, and an emptied sentence box is no error at all.
#include <QStatusBar>

#include "tests/support/shared_assets.h"
#include "tests/ui/ui_test_support.h"
#include "ui/document/lab_document.h"
#include "ui/window/main_window.h"

namespace qkv::ui::test {
namespace {

TEST_F(MainWindowTest, AnErrorInTheStatusBarGoesWithTheNextResult) {
    QKV_REQUIRE_SHARED(shared);
    ASSERT_TRUE(open(QString::fromStdString((shared / "models" / "gpt2-random-tiny").string())));
    doc().setText(QStringLiteral("#1 2 999999"));  // an id outside the vocabulary
    ASSERT_TRUE(settle());
    EXPECT_TRUE(window->statusBar()->currentMessage().startsWith(QStringLiteral("Could not")))
        << window->statusBar()->currentMessage().toStdString();
    ASSERT_TRUE(type(QStringLiteral("#1 2 3")));
    EXPECT_TRUE(window->statusBar()->currentMessage().isEmpty())
        << window->statusBar()->currentMessage().toStdString();
    doc().setText(QString());
    ASSERT_TRUE(settle());
    EXPECT_TRUE(window->statusBar()->currentMessage().isEmpty())
        << window->statusBar()->currentMessage().toStdString();
}

}  // namespace
}  // namespace qkv::ui::test
