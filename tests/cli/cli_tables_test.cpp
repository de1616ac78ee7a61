// The command line's tables show tokens as the app does (the text, not the vocabulary's piece)
// and stay aligned with non-ASCII tokens: every row is as wide on a terminal as the header.
#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>
#include <string>
#include <vector>

#include "core/tokenize/token_label.h"
#include "tests/cli/cli_run.h"

namespace qkv {
namespace {

std::vector<std::string> linesOf(const std::string& text) {
    std::vector<std::string> lines;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    return lines;
}

const std::string kModel = std::string(QKV_RESOURCES_DIR) + "/models/qkv-stories-learned";
const std::string kText = "Café naïve — the cat";

TEST(CliTables, AttentionRowsAlignWithNonAsciiTokens) {
    const test::CliRun r = test::cli({"attention", "--model", kModel, "--text", kText, "--layer",
                                      "0", "--head", "0", "--no-scores", "--backend", "cpu"});
    ASSERT_EQ(r.exitCode, 0) << r.err;
    const std::vector<std::string> lines = linesOf(r.out);
    const auto header = std::find_if(lines.begin(), lines.end(), [](const std::string& l) {
        return l.find("the") != std::string::npos && l.find("cat") != std::string::npos;
    });
    ASSERT_NE(header, lines.end()) << r.out;
    EXPECT_EQ(header->find("Ġ"), std::string::npos) << "a raw piece in: " << *header;
    int rows = 0;
    for (auto line = header + 1; line != lines.end() && !line->empty(); ++line, ++rows)
        EXPECT_EQ(displayWidth(*line), displayWidth(*header)) << *line;
    EXPECT_GE(rows, 10);
}

TEST(CliTables, TokenizeShowsTheTokenAndItsPiece) {
    const test::CliRun r = test::cli({"tokenize", "--model", kModel, "--text", "the cat"});
    ASSERT_EQ(r.exitCode, 0) << r.err;
    EXPECT_NE(r.out.find("cat            Ġcat"), std::string::npos) << r.out;
    const test::CliRun json =
        test::cli({"tokenize", "--model", kModel, "--text", "the cat", "--json"});
    ASSERT_EQ(json.exitCode, 0) << json.err;
    EXPECT_EQ(json.json()["tokens"][2], "Ġcat");  // the JSON keeps the vocabulary's pieces
}

}  // namespace
}  // namespace qkv
