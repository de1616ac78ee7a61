#pragma once
// Runs the built qkvlab-cli through /bin/sh and captures its exit code, stdout and stderr.
#include <cstdint>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

namespace qkv::test {

struct CliRun {
    int exitCode = -1;
    std::string out;
    std::string err;
    nlohmann::json json() const { return nlohmann::json::parse(out); }
};

// `shellPrefix` runs before the command in the same shell ("ulimit -f 8;", "HF_HUB_OFFLINE=1").
CliRun cli(const std::vector<std::string>& args, const std::string& shellPrefix = "");

// The command line on a terminal (util-linux's `script` makes one): its output is what the
// terminal showed, stderr's progress lines included.
CliRun cliOnTerminal(const std::vector<std::string>& args);

// The peak resident memory of the command (with `args`; its output discarded), in KiB, or -1
// when it failed.
long peakResidentKb(const std::vector<std::string>& args);

// Width and height of a PNG, from its IHDR chunk.
std::pair<uint32_t, uint32_t> pngSize(const std::filesystem::path& file);

// Quotes an argument for /bin/sh.
std::string shellQuote(const std::string& arg);

}  // namespace qkv::test
