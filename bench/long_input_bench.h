#pragma once
// A long input as the app computes it (bench/app_requests.h: at this length the app captures one
// head): time and peak memory of a process that opens the model and runs it. The process is the
// benchmark itself re-invoked with --long-input-child, so that its peak RSS holds nothing the
// other rows left on the heap.
#include <cstdint>
#include <string>
#include <vector>

#include "bench/bench_report.h"
#include "core/train/model_shape.h"

namespace qkv::bench {

struct LongInputResult {
    int tokens = 0;
    std::vector<double> seconds;  // each timed forward, after a warm-up
    std::uint64_t peakRss = 0;  // the process's VmHWM: the weights it read and the forward's memory
    std::uint64_t weightBytes = 0;
    double sgemmGflops = 0;  // measured by the same process before and after the forwards
    bool oneHead = false;
    std::string error;  // why it was not measured; empty when it was
};

// Runs the child process on the checkpoint in `dir`.
LongInputResult measureLongInput(const std::string& dir, int tokens, int repeats);

// The child: measures and prints the result as one JSON line; an error is part of the result.
int runLongInputChild(const std::string& dir, int tokens, int repeats);

// The time row (with its share of the SGEMM rate) and the peak RSS row against its target, the
// weights + 1 GB; `summary` gets "long_input".
void addLongInputRows(const LongInputResult& result, const train::ModelShape& shape,
                      ReportTable& table, Json& summary, std::vector<std::string>& notMeasured);

}  // namespace qkv::bench
