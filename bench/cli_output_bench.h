#pragma once
// `qkvlab-cli attention` of one head on a long input, printed three ways — the table, --json
// (streamed) and --npz — each in a process of its own, with the peak RSS the kernel kept for it
// (wait4's ru_maxrss): the JSON and the archive against the table (the Python issue's target,
// at most 1.2x: the matrices are written as they are read, never built as one document).
#include <cstdint>
#include <string>
#include <vector>

#include "bench/bench_report.h"

namespace qkv::bench {

struct CliOutputResult {
    int tokens = 0;
    std::uint64_t tablePeak = 0, jsonPeak = 0, npzPeak = 0;  // bytes
    std::uint64_t jsonBytes = 0, npzBytes = 0;               // what each wrote
    std::string error;  // why it was not measured; empty when it was
};

// Runs the qkvlab-cli built beside this benchmark on the checkpoint in `dir`.
CliOutputResult measureCliOutputs(const std::string& dir, int tokens, int vocab);

void addCliOutputRows(const CliOutputResult& result, ReportTable& table, Json& summary,
                      std::vector<std::string>& notMeasured);

}  // namespace qkv::bench
