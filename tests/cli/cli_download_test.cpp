// qkvlab-cli download and opening by Hub id, against a fake Hub on 127.0.0.1 (HF_ENDPOINT) with
// the cache in a temporary HF_HOME: the snapshot printed, the cache reused offline, tokens from
// the environment and the token file, and a full disk.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "tests/cli/cli_run.h"
#include "tests/support/fake_hub_server.h"
#include "tests/support/fixture_writer.h"

namespace qkv {
namespace {

namespace fs = std::filesystem;
using test::cli;
using test::CliRun;
using test::shellQuote;

constexpr const char* kCommit = "c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00";

class CliDownload : public testing::Test {
  protected:
    void SetUp() override {
        test::writeTinyGpt2(m_dir.path() / "model");
        m_repo =
            test::fakeRepoFromFolder("test-org/tiny", kCommit, (m_dir.path() / "model").string());
    }
    // The environment that points the CLI at the fake Hub and the temporary cache.
    std::string env(const std::string& more = "") const {
        return "HF_ENDPOINT=" + shellQuote(m_server.endpoint()) +
               " HF_HOME=" + shellQuote((m_dir.path() / "hf").string()) +
               " HF_HUB_CACHE= HF_TOKEN= HF_HUB_OFFLINE= " + more;
    }
    fs::path snapshot() const {
        return m_dir.path() / "hf" / "hub" / "models--test-org--tiny" / "snapshots" / kCommit;
    }
    test::TempDir m_dir;
    test::FakeHubServer m_server;
    test::FakeHubRepo m_repo;
};

TEST_F(CliDownload, DownloadPrintsTheSnapshotAndTheCacheServesItOffline) {
    m_server.add(m_repo);
    const CliRun r = cli({"download", "test-org/tiny"}, env());
    ASSERT_EQ(r.exitCode, 0) << r.err;
    EXPECT_EQ(r.out, snapshot().string() + "\n");
    EXPECT_NE(r.err.find("2 of 2 files fetched"), std::string::npos) << r.err;
    EXPECT_TRUE(fs::is_symlink(snapshot() / "model.safetensors"));

    const size_t asked = m_server.requests().size();
    const CliRun offline =
        cli({"info", "--model", "test-org/tiny", "--json"}, env("HF_HUB_OFFLINE=1"));
    ASSERT_EQ(offline.exitCode, 0) << offline.err;
    EXPECT_EQ(offline.json()["model"], "test-org/tiny");
    EXPECT_EQ(offline.json()["architecture"], "gpt2");
    const CliRun again = cli({"download", "test-org/tiny", "--json"}, env("HF_HUB_OFFLINE=1"));
    ASSERT_EQ(again.exitCode, 0) << again.err;
    EXPECT_EQ(again.json()["snapshot"], snapshot().string());
    EXPECT_EQ(m_server.requests().size(), asked);  // offline: the Hub was never asked
}

TEST_F(CliDownload, AnIdTheCacheLacksIsDownloadedWhenOpened) {
    m_server.add(m_repo);
    const CliRun r =
        cli({"info", "--model", "test-org/tiny", "--revision", kCommit, "--json"}, env());
    ASSERT_EQ(r.exitCode, 0) << r.err;
    EXPECT_EQ(r.json()["layers"], 2);
    EXPECT_NE(r.err.find("test-org/tiny: downloading"), std::string::npos) << r.err;
    EXPECT_TRUE(fs::exists(snapshot() / "config.json"));

    const CliRun folder =
        cli({"info", "--model", snapshot().string(), "--revision", "main"}, env());
    EXPECT_EQ(folder.exitCode, 2);
    EXPECT_NE(folder.err.find("--revision applies to a Hugging Face model id"), std::string::npos)
        << folder.err;
}

TEST_F(CliDownload, GatedModelsTakeTheTokenFromTheEnvironmentOrTheTokenFile) {
    m_repo.token = "hf_abc";
    m_server.add(m_repo);
    const CliRun anonymous = cli({"download", "test-org/tiny"}, env());
    EXPECT_EQ(anonymous.exitCode, 1);
    EXPECT_EQ(
        anonymous.err,
        "qkvlab-cli download: error: test-org/tiny is gated: accept its licence on the Hub (" +
            m_server.endpoint() + "/test-org/tiny) and set HF_TOKEN (HTTP 401)\n");
    EXPECT_EQ(cli({"download", "test-org/tiny"}, env("HF_TOKEN=hf_abc")).exitCode, 0);

    fs::remove_all(m_dir.path() / "hf" / "hub");
    fs::create_directories(m_dir.path() / "hf");
    std::ofstream(m_dir.path() / "hf" / "token") << "hf_abc\n";
    const CliRun saved = cli({"download", "test-org/tiny"}, env());
    EXPECT_EQ(saved.exitCode, 0) << saved.err;
}

TEST_F(CliDownload, OfflineWithoutTheModelSaysSoAtOnce) {
    const CliRun r = cli({"info", "--model", "test-org/tiny"}, env("HF_HUB_OFFLINE=1"));
    EXPECT_EQ(r.exitCode, 1);
    EXPECT_NE(r.err.find("HF_HUB_OFFLINE is set"), std::string::npos) << r.err;
    EXPECT_TRUE(m_server.requests().empty());
}

TEST_F(CliDownload, AFullDiskLeavesNoHalfFile) {
    m_server.add(m_repo);
    // The file-size limit makes writes past 4 KiB fail as a full disk does (the signal it would
    // raise is ignored, so write() reports the error).
    const CliRun r = cli({"download", "test-org/tiny"}, "trap '' XFSZ; ulimit -f 8; " + env());
    EXPECT_EQ(r.exitCode, 1);
    EXPECT_NE(r.err.find("downloading model.safetensors failed: cannot write"), std::string::npos)
        << r.err;
    const fs::path blobs = snapshot().parent_path().parent_path() / "blobs";
    for (const auto& entry : fs::directory_iterator(blobs))
        EXPECT_NE(entry.path().extension(), ".incomplete") << entry.path();
    EXPECT_FALSE(fs::exists(snapshot() / "model.safetensors"));
    EXPECT_FALSE(fs::exists(snapshot().parent_path().parent_path() / "refs" / "main"));
}

}  // namespace
}  // namespace qkv
