// Edit ▸ Copy as Python: the script on the clipboard is for the document's model, ids, head and
// configuration.
#include <QAction>
#include <QClipboard>
#include <QGuiApplication>
#include <QStatusBar>

#include "tests/ui/ui_test_support.h"
#include "ui/document/document_python_check.h"

namespace qkv::ui::test {
namespace {

TEST_F(MainWindowTest, CopyAsPythonPutsTheShownHeadsScriptOnTheClipboard) {
    EXPECT_TRUE(copyPythonCheck(doc()).contains(QStringLiteral("open a model")));
    QKV_REQUIRE_SHARED(shared);
    ASSERT_TRUE(open(modelPath(shared, "gpt2-random-tiny")));
    doc().setConfig(WConfiguration::parse("shared-qk"));
    ASSERT_TRUE(type(QStringLiteral("The movie was a box office bomb.")));
    doc().setHead(1, 2);
    ASSERT_TRUE(settle());

    auto* action = window->findChild<QAction*>(QStringLiteral("copyAsPython"));
    ASSERT_NE(action, nullptr);
    EXPECT_EQ(action->shortcut(), QKeySequence(QStringLiteral("Ctrl+Shift+P")));
    action->trigger();
    const QString script = QGuiApplication::clipboard()->text();
    EXPECT_TRUE(script.contains(
        QStringLiteral("input_ids = torch.tensor([[464, 3807, 373, 257, 3091, 2607, 5194, 13]])")))
        << script.toStdString();
    EXPECT_TRUE(
        script.contains(QStringLiteral("#   text           \"The movie was a box office "
                                       "bomb.\"")));
    EXPECT_TRUE(script.contains(QStringLiteral("assign(k, learned_q)  # K := Q")));
    EXPECT_TRUE(script.contains(QStringLiteral("outputs.attentions[1][0, 2]")));
    EXPECT_TRUE(window->statusBar()->currentMessage().contains(QStringLiteral("layer 1, head 2")))
        << window->statusBar()->currentMessage().toStdString();
}

}  // namespace
}  // namespace qkv::ui::test
