// qkvlab-cli render --session: a saved session drawn without the app, and sessions it refuses
// (corrupt, another format, newer) with exit code 1, one line naming the file, and no figure.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "tests/cli/cli_run.h"
#include "tests/support/fixture_writer.h"

namespace qkv {
namespace {

using test::cli;
using test::CliRun;
using test::pngSize;

class CliSessionTest : public testing::Test {
  protected:
    void SetUp() override {
#ifndef QKV_CLI_HAS_RENDER
        GTEST_SKIP() << "qkvlab-cli was built without the GUI (QKV_BUILD_GUI=OFF): no render";
#endif
        test::writeTinyGpt2(m_dir.path() / "gpt2");
    }
    std::filesystem::path path(const std::string& name) const { return m_dir.path() / name; }

    // A session as the app writes it, on the tiny GPT-2 (no tokenizer: ids after '#').
    nlohmann::json session() const {
        return {{"format", "qkvlab-session"},
                {"version", 1},
                {"model", {{"folder", path("gpt2").string()}}},
                {"text", "#1 2 3 4 5"},
                {"config", {{"name", "shared-qk"}, {"scale_outside", false}, {"mask_self", true}}},
                {"view", {{"tab", "compare"}, {"layer", 1}, {"head", 2}, {"mode", "scores"}}},
                {"colors", {{"sequential", "magma"}, {"diverging", "blue-white-red"}}},
                {"annotations",
                 {{{"attention", "self"}, {"layer", 1}, {"head", 2}, {"name", "induction"}}}}};
    }
    std::string write(const std::string& name, const std::string& content) const {
        std::ofstream(path(name)) << content;
        return path(name).string();
    }
    test::TempDir m_dir;
};

std::string readText(const std::filesystem::path& file) {
    std::ifstream in(file);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

TEST_F(CliSessionTest, RendersWhatTheSessionShows) {
    const std::string file = write("study.qkvlab", session().dump(2));
    const auto png = path("head.png");
    CliRun r = cli({"render", "--session", file, "--out", png.string()});
    ASSERT_EQ(r.exitCode, 0) << r.err;
    EXPECT_EQ(r.out.rfind("wrote " + png.string(), 0), 0u) << r.out;
    EXPECT_EQ(pngSize(png), std::make_pair(2000u, 1640u));
    EXPECT_GT(std::filesystem::file_size(png), 20'000u);  // a drawn figure, not a blank page

    // The compare tab, its head, configuration and name are in the figure's text.
    const auto svg = path("head.svg");
    r = cli({"render", "--session", file, "--out", svg.string()});
    ASSERT_EQ(r.exitCode, 0) << r.err;
    const std::string text = readText(svg);
    EXPECT_NE(text.find("induction"), std::string::npos);
    EXPECT_NE(text.find("learned vs shared-qk"), std::string::npos);

    // Options given override the session's.
    r = cli({"render", "--session", file, "--layer", "0", "--out", svg.string()});
    ASSERT_EQ(r.exitCode, 0) << r.err;
    EXPECT_EQ(readText(svg).find("induction"), std::string::npos);  // layer 0's head has no name
}

TEST_F(CliSessionTest, BadSessionsFailWithExitOneAndWriteNothing) {
    nlohmann::json newer = session();
    newer["version"] = 2;
    nlohmann::json other = session();
    other["format"] = "something-else";
    nlohmann::json missing = session();
    missing["model"]["folder"] = path("gone").string();
    const struct {
        std::string file;
        std::string fragment;
    } cases[] = {
        {write("corrupt.qkvlab", "{\"format\": \"qkvlab-session\", "), "invalid JSON"},
        {write("newer.qkvlab", newer.dump()), "newer QKV Lab"},
        {write("other.qkvlab", other.dump()), "not a QKV Lab session"},
        {write("missing.qkvlab", missing.dump()), path("gone").string()},
        {path("absent.qkvlab").string(), "cannot read"},
    };
    const auto out = path("never.png");
    for (const auto& c : cases) {
        const CliRun r = cli({"render", "--session", c.file, "--out", out.string()});
        EXPECT_EQ(r.exitCode, 1) << c.file;
        EXPECT_NE(r.err.find(c.fragment), std::string::npos) << r.err;
        EXPECT_NE(r.err.find("qkvlab-cli render: error: "), std::string::npos) << r.err;
        EXPECT_FALSE(std::filesystem::exists(out)) << c.file;
    }
    const CliRun both = cli({"render", "--session", cases[0].file, "--model", path("gpt2").string(),
                             "--out", out.string()});
    EXPECT_EQ(both.exitCode, 2);
    EXPECT_NE(both.err.find("leave out --model"), std::string::npos) << both.err;
}

}  // namespace
}  // namespace qkv
