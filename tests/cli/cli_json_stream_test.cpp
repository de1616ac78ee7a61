// attention --json streams its matrices: its peak memory is the table output's (the trace) plus a
// small buffer, where building the document first took several times the trace.
#include <gtest/gtest.h>

#include <string>

#include "tests/cli/cli_run.h"
#include "tests/support/fixture_writer.h"

namespace qkv {
namespace {

TEST(CliJsonStream, AttentionJsonNeedsNoMoreMemoryThanTheTable) {
    test::TempDir dir;
    test::TinyModelSpec spec;
    spec.context = 1024;
    test::writeTinyGpt2(dir.path(), spec);
    std::string ids;
    for (int i = 0; i < spec.context; ++i)
        ids += (i ? "," : "") + std::to_string(i * 7 % spec.vocab);
    const std::vector<std::string> args = {
        "attention", "--model", dir.path().string(), "--ids", ids, "--layer", "1", "--head", "2"};
    std::vector<std::string> json = args;
    json.push_back("--json");
    const long tableKb = test::peakResidentKb(args);
    const long jsonKb = test::peakResidentKb(json);
    ASSERT_GT(tableKb, 0);
    ASSERT_GT(jsonKb, 0);
    // The head's scores and probabilities are 2 x 1024² floats (8 MiB), held by both. A document
    // of their 2.1 million numbers held in memory, then dumped to a string, would add about
    // 50 MiB; the stream holds one row at a time. 16 MiB leaves room for allocator slack.
    EXPECT_LE(jsonKb, tableKb + 16 * 1024) << "table " << tableKb << " KiB, json " << jsonKb;
}

}  // namespace
}  // namespace qkv
