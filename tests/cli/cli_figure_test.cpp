// Figures that say what they show, end to end: `render` writes the provenance into PNG, SVG and
// PDF, `info --figure` reads it back, `render --data` writes the drawn matrix, which equals what
// `attention --json` prints, and a figure without provenance is a clear error.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <sstream>

#include "tests/cli/cli_run.h"
#include "tests/support/fixture_writer.h"

namespace qkv {
namespace {

using test::cli;
using test::CliRun;

class CliFigureTest : public testing::Test {
  protected:
    void SetUp() override {
#ifndef QKV_CLI_HAS_RENDER
        GTEST_SKIP() << "qkvlab-cli was built without the GUI, so it has no render";
#endif
        test::writeTinyGpt2(m_dir.path() / "gpt2");
    }
    std::string model() const { return (m_dir.path() / "gpt2").string(); }
    std::string path(const std::string& name) const { return (m_dir.path() / name).string(); }
    CliRun render(const std::string& out, std::vector<std::string> extra = {}) const {
        std::vector<std::string> args = {"render",  "--model", model(), "--ids",
                                         "1,2,3,4", "--layer", "1",     "--head",
                                         "2",       "--out",   out};
        args.insert(args.end(), extra.begin(), extra.end());
        return cli(args);
    }
    test::TempDir m_dir;
};

TEST_F(CliFigureTest, InfoReadsBackWhatRenderWasAskedFor) {
    for (const std::string name : {"x.png", "x.svg", "x.pdf"}) {
        SCOPED_TRACE(name);
        CliRun r = render(path(name), {"--config", "shared-qk", "--mask-self", "--colormap",
                                       "cividis", "--view", "scores"});
        ASSERT_EQ(r.exitCode, 0) << r.err;
        r = cli({"info", "--figure", path(name), "--json"});
        ASSERT_EQ(r.exitCode, 0) << r.err;
        const auto p = r.json();
        EXPECT_EQ(p["model"], "gpt2");
        EXPECT_EQ(p["ids"], (std::vector<int>{1, 2, 3, 4}));
        EXPECT_FALSE(p.contains("text")) << "given as ids: no text to name";
        EXPECT_EQ(p["layer"], 1);
        EXPECT_EQ(p["head"], 2);
        EXPECT_EQ(p["config"], "shared-qk");
        EXPECT_EQ(p["options"]["mask_self"], true);
        EXPECT_EQ(p["options"]["scale_outside"], false);
        EXPECT_EQ(p["view"], "head");
        EXPECT_EQ(p["mode"], "scores");
        EXPECT_FALSE(p.contains("colormap")) << "scores are drawn with the diverging map only";
        EXPECT_EQ(p["diverging_colormap"], "blue-white-red");
        EXPECT_EQ(p["weights_header_sha256"].get<std::string>().size(), 64u);
        EXPECT_EQ(p["weights_files"], (std::vector<std::string>{"model.safetensors"}));
        EXPECT_FALSE(p["app_version"].get<std::string>().empty());
        EXPECT_EQ(p["exported_at"].get<std::string>().back(), 'Z');
        EXPECT_FALSE(p.contains("block")) << "not an encoder-decoder";
    }
    const CliRun table = cli({"info", "--figure", path("x.png")});
    ASSERT_EQ(table.exitCode, 0) << table.err;
    EXPECT_NE(table.out.find("layer          1\n"), std::string::npos) << table.out;
    EXPECT_NE(table.out.find("config         shared-qk (scale outside: no, mask self: yes"),
              std::string::npos)
        << table.out;
}

TEST_F(CliFigureTest, DataBesideTheFigureIsTheAttentionDrawn) {
    CliRun r = render(path("head.svg"), {"--data"});
    ASSERT_EQ(r.exitCode, 0) << r.err;
    EXPECT_NE(r.out.find("wrote " + path("head.json")), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("wrote " + path("head.csv")), std::string::npos) << r.out;
    std::ifstream in(path("head.json"));
    const auto data = nlohmann::json::parse(in);
    EXPECT_EQ(data["provenance"]["layer"], 1);
    EXPECT_EQ(data["rows"].size(), 4u);
    EXPECT_EQ(data["columns"].size(), 4u);

    r = cli({"attention", "--model", model(), "--ids", "1,2,3,4", "--layer", "1", "--head", "2",
             "--no-scores", "--json"});
    ASSERT_EQ(r.exitCode, 0) << r.err;
    const auto doc = r.json();
    const auto& attention = doc["layers"][0]["heads"][0]["attention"];
    ASSERT_EQ(data["values"].size(), attention.size());
    for (size_t i = 0; i < attention.size(); ++i)
        for (size_t j = 0; j < attention[i].size(); ++j) {
            const auto& drawn = data["values"][i][j];
            if (drawn.is_null())  // a masked (future) cell: drawn grey, zero attention
                EXPECT_EQ(attention[i][j], 0.0) << i << "," << j;
            else
                EXPECT_NEAR(drawn.get<double>(), attention[i][j].get<double>(), 1e-6)
                    << i << "," << j;
        }

    std::ifstream csv(path("head.csv"));
    std::stringstream lines;
    lines << csv.rdbuf();
    std::string header;
    std::getline(lines, header);
    EXPECT_EQ(std::count(header.begin(), header.end(), ','), 4) << header;
}

TEST_F(CliFigureTest, AFigureWithoutProvenanceIsAClearError) {
    std::ofstream(path("plain.svg")) << "<?xml version=\"1.0\"?>\n"
                                        "<svg xmlns=\"http://www.w3.org/2000/svg\"></svg>\n";
    CliRun r = cli({"info", "--figure", path("plain.svg")});
    EXPECT_EQ(r.exitCode, 1);
    EXPECT_NE(r.err.find("carries no QKV Lab provenance"), std::string::npos) << r.err;
    std::ofstream(path("notes.txt")) << "hello\n";
    r = cli({"info", "--figure", path("notes.txt")});
    EXPECT_EQ(r.exitCode, 1);
    EXPECT_NE(r.err.find("not a PNG, SVG or PDF"), std::string::npos) << r.err;
    r = cli({"info", "--figure", path("x.png"), "--model", model()});
    EXPECT_EQ(r.exitCode, 2);
}

}  // namespace
}  // namespace qkv
