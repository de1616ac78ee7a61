#pragma once
// What the benchmark's parts share: wall-clock seconds, medians, the machine's SGEMM rate (the
// physical limit every ratio is read against), peak memory, and a folder removed on exit.
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace qkv::bench {

using Clock = std::chrono::steady_clock;

double seconds(Clock::time_point since);
double median(std::vector<double> v);

// Peak resident set size (VmHWM) in bytes; resetPeak() restarts it from the current RSS.
std::uint64_t peakRss();
void resetPeak();

// Single-precision GEMM throughput at 768x768x768 through OpenBLAS on every core: the best of
// five 0.2 s windows (other load on the machine only ever lowers it). The CPU backend makes
// OpenBLAS single-threaded for its own pool, so the thread count is set for the measurement.
double sgemmGflops();

// Runs a PyTorch reference script (`command`, stderr merged into stdout) and parses its result,
// the last non-empty line, a JSON object (PyTorch may print warnings before it). Prints the
// output and returns null when the script fails or prints no such line.
nlohmann::json runReferenceScript(const std::string& command);

struct TemporaryFolder {
    std::filesystem::path path;
    ~TemporaryFolder();
};

}  // namespace qkv::bench
