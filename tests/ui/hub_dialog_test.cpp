// File ▸ Open from Hugging Face… against a fake Hub on 127.0.0.1: the cache's models listed, an
// id downloaded with progress and then opened, a download cancelled and later resumed, and a
// refusal reported as a message instead of a crash.
#include <QLabel>
#include <QLineEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QTableWidget>

#include "tests/support/fake_hub_server.h"
#include "tests/support/fixture_writer.h"
#include "tests/support/scoped_environment.h"
#include "tests/support/shared_assets.h"
#include "tests/ui/ui_test_support.h"
#include "ui/window/hub_download_panel.h"
#include "ui/window/hub_models_dialog.h"

namespace qkv::ui::test {
namespace {

namespace fs = std::filesystem;
constexpr const char* kCommit = "feedface00feedface00feedface00feedface00";

class HubDialogTest : public ::testing::Test {
  protected:
    void SetUp() override {
        qkv::test::writeTinyGpt2(m_dir.path() / "model");
        m_repo = qkv::test::fakeRepoFromFolder("test-org/tiny", kCommit,
                                               (m_dir.path() / "model").string());
        m_env.set("HF_ENDPOINT", m_server.endpoint());
        m_env.set("HF_HOME", (m_dir.path() / "hf").string());
        for (const char* name : {"HF_HUB_CACHE", "HF_TOKEN", "HF_TOKEN_PATH", "HF_HUB_OFFLINE"})
            m_env.set(name, std::nullopt);
        // No Ollama store or LM Studio folder but the tests' own.
        m_env.set("OLLAMA_MODELS", (m_dir.path() / "ollama").string());
        m_env.set("HOME", (m_dir.path() / "home").string());
    }
    fs::path repoFolder() const { return m_dir.path() / "hf" / "hub" / "models--test-org--tiny"; }

    qkv::test::TempDir m_dir;
    qkv::test::FakeHubServer m_server;
    qkv::test::FakeHubRepo m_repo;
    qkv::test::ScopedEnvironment m_env;
    RecordingMessageSink m_sink;
};

// With nothing found, the dialog says where it looked instead of showing an empty list.
TEST_F(HubDialogTest, NothingFoundSaysWhereItLooked) {
    HubModelsDialog dialog(nullptr, &m_sink);
    dialog.show();
    auto* table = dialog.findChild<QTableWidget*>();
    auto* nothing = dialog.findChild<QLabel*>(QStringLiteral("nothingFound"));
    ASSERT_NE(nothing, nullptr);
    EXPECT_FALSE(table->isVisible());
    EXPECT_TRUE(nothing->isVisible());
    const QString text = nothing->text();
    for (const fs::path& place : {m_dir.path() / "hf" / "hub", m_dir.path() / "ollama",
                                  m_dir.path() / "home" / ".lmstudio" / "models"})
        EXPECT_TRUE(text.contains(QString::fromStdString(place.string()))) << text.toStdString();
    EXPECT_TRUE(text.contains(QStringLiteral("OLLAMA_MODELS")));
    bool browse = false;
    for (QPushButton* button : dialog.findChildren<QPushButton*>())
        browse |= button->text() == QStringLiteral("&Browse…");
    EXPECT_TRUE(browse);
}

TEST_F(HubDialogTest, DownloadsAnIdAndOpensItsSnapshot) {
    m_server.add(m_repo);
    HubModelsDialog dialog(nullptr, &m_sink);
    auto* table = dialog.findChild<QTableWidget*>();
    EXPECT_EQ(table->rowCount(), 0);
    dialog.download(QStringLiteral("test-org/tiny"), true);
    ASSERT_TRUE(waitFor([&] { return dialog.result() == QDialog::Accepted; }, 20000))
        << m_sink.errors.join('\n').toStdString();
    EXPECT_EQ(dialog.location().toStdString(), (repoFolder() / "snapshots" / kCommit).string());
    ASSERT_EQ(table->rowCount(), 1);  // the list now shows it
    EXPECT_EQ(table->item(0, 0)->text(), QStringLiteral("test-org/tiny"));
    EXPECT_EQ(table->item(0, 3)->text(), QStringLiteral("gpt2"));
    EXPECT_TRUE(m_sink.errors.isEmpty());

    // Reopened, the cached model opens without asking the Hub.
    HubModelsDialog again(nullptr, &m_sink);
    again.findChild<QTableWidget*>()->selectRow(0);
    const size_t asked = m_server.requests().size();
    QPushButton* open = nullptr;
    for (QPushButton* button : again.findChildren<QPushButton*>())
        if (button->text() == QStringLiteral("&Open")) open = button;
    ASSERT_NE(open, nullptr);
    ASSERT_TRUE(open->isEnabled());
    QTest::mouseClick(open, Qt::LeftButton);
    EXPECT_EQ(again.result(), QDialog::Accepted);
    EXPECT_EQ(again.location(), dialog.location());
    EXPECT_EQ(m_server.requests().size(), asked);
}

// Ollama's and LM Studio's models are listed beside the cache's and open by their name.
TEST_F(HubDialogTest, ListsTheModelsOfOllamaAndLmStudio) {
    QKV_REQUIRE_SHARED_GGUF(shared);
    m_env.set("OLLAMA_MODELS", (shared / "gguf" / "stores" / "ollama").string());
    fs::create_directories(m_dir.path() / "home");
    fs::create_directory_symlink(shared / "gguf" / "stores" / "lmstudio",
                                 m_dir.path() / "home" / ".lmstudio");
    HubModelsDialog dialog(nullptr, &m_sink);
    auto* table = dialog.findChild<QTableWidget*>();
    ASSERT_EQ(table->rowCount(), 3);
    EXPECT_EQ(table->item(0, 0)->text(), QStringLiteral("ollama:llama-gguf-tiny:f32"));
    EXPECT_EQ(table->item(0, 3)->text(), QStringLiteral("GGUF llama"));
    EXPECT_EQ(table->item(0, 4)->text(), QStringLiteral("supported"));
    EXPECT_EQ(table->item(2, 1)->text(), QStringLiteral("LM Studio"));
    table->selectRow(1);
    QPushButton* open = nullptr;
    for (QPushButton* button : dialog.findChildren<QPushButton*>())
        if (button->text() == QStringLiteral("&Open")) open = button;
    ASSERT_NE(open, nullptr);
    ASSERT_TRUE(open->isEnabled());
    QTest::mouseClick(open, Qt::LeftButton);
    EXPECT_EQ(dialog.result(), QDialog::Accepted);
    EXPECT_EQ(dialog.location(), QStringLiteral("ollama:llama-gguf-tiny:latest"));
    EXPECT_TRUE(m_server.requests().empty());
}

TEST_F(HubDialogTest, ACancelledDownloadResumesOnTheNextTry) {
    m_repo.bytesPerSecond = 20000;  // the weights take seconds: time to press Cancel
    m_server.add(m_repo);
    HubModelsDialog dialog(nullptr, &m_sink);
    auto* panel = dialog.findChild<HubDownloadPanel*>();
    QStringList failures;
    QObject::connect(panel, &HubDownloadPanel::failed,
                     [&](const QString&, const QString& message) { failures << message; });
    dialog.download(QStringLiteral("test-org/tiny"), false);
    auto* fileBar = panel->findChildren<QProgressBar*>().front();
    ASSERT_TRUE(waitFor([&] { return fileBar->value() > 0 && fileBar->value() < 1000; }));
    const auto cancel = panel->findChild<QPushButton*>();
    QTest::mouseClick(cancel, Qt::LeftButton);
    ASSERT_TRUE(waitFor([&] { return !panel->isRunning(); }, 5000));
    ASSERT_EQ(failures, QStringList{QString()});  // cancelled: no error message
    EXPECT_TRUE(m_sink.errors.isEmpty());
    bool partial = false;
    for (const auto& entry : fs::directory_iterator(repoFolder() / "blobs"))
        partial |= entry.path().extension() == ".incomplete" && fs::file_size(entry.path()) > 0;
    EXPECT_TRUE(partial);
    EXPECT_FALSE(fs::exists(repoFolder() / "refs" / "main"));

    m_repo.bytesPerSecond = 0;  // full speed for the rest
    m_server.add(m_repo);
    dialog.download(QStringLiteral("test-org/tiny"), false);
    ASSERT_TRUE(waitFor([&] { return fs::exists(repoFolder() / "refs" / "main"); }, 30000));
    bool resumed = false;
    for (const auto& request : m_server.requests()) resumed |= !request.range.empty();
    EXPECT_TRUE(resumed);
}

TEST_F(HubDialogTest, ARefusalIsAMessage) {
    m_repo.token = "hf_needed";
    m_server.add(m_repo);
    HubModelsDialog dialog(nullptr, &m_sink);
    dialog.download(QStringLiteral("test-org/tiny"), true);
    ASSERT_TRUE(waitFor([&] { return !m_sink.errors.isEmpty(); }, 10000));
    EXPECT_TRUE(m_sink.errors.front().contains(QStringLiteral("is gated")))
        << m_sink.errors.front().toStdString();
    EXPECT_NE(dialog.result(), QDialog::Accepted);
}

}  // namespace
}  // namespace qkv::ui::test
