#pragma once
// What the benchmark's parts share: wall-clock seconds, medians, the machine's SGEMM rate (the
// physical limit every ratio is read against), peak memory, and a folder removed on exit.
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/train/model_shape.h"

namespace qkv::bench {

using Clock = std::chrono::steady_clock;

double seconds(Clock::time_point since);
double median(std::vector<double> v);

// Floating-point operations of a GPT-2 forward over n tokens (GEMMs and attention products;
// element-wise work is negligible), with the logits of the last position or none.
double forwardFlops(const train::ModelShape& shape, int n, bool logits);

// Peak resident set size (VmHWM) in bytes; resetPeak() restarts it from the current RSS.
std::uint64_t peakRss();
void resetPeak();

// Single-precision GEMM throughput at 768x768x768 through OpenBLAS on every core: the best of
// five 0.2 s windows (other load on the machine only ever lowers it). The CPU backend makes
// OpenBLAS single-threaded for its own pool, so the thread count is set for the measurement.
double sgemmGflops();

// Runs a reference (`command`, stderr merged into stdout: a PyTorch script, or the benchmark's own
// child process) and parses its result, the last non-empty line, a JSON object (PyTorch may print
// warnings before it). Prints the output and returns null when the command fails or prints no
// such line.
nlohmann::json runReferenceScript(const std::string& command);

struct TemporaryFolder {
    std::filesystem::path path;
    ~TemporaryFolder();
};

}  // namespace qkv::bench
