#pragma once
// qkvlab-bench --shape llama3-8b: an 8B model on this machine. Writes a Llama-3-8B-shaped bf16
// checkpoint (sharded; removed afterwards, or kept in the --checkpoint folder, which later runs
// reuse) and measures,
// each in a child process whose anonymous resident memory (RssAnon, the part that is not the
// mapped weights) is sampled every 10 ms:
//   open + info, analyze of every head, forward + capture of one head at 64 tokens,
// against the targets of the 8B issue, plus the same forward in plain PyTorch bfloat16, and the
// analysis with the OV copying scores twice: with an empty cache (W_U W_E computed and kept) and
// with that cache (the Python issue's targets).
#include <string>

#include "bench/child_stage.h"
#include "core/model/architecture.h"

namespace qkv::bench {

struct LargeModelOptions {
    std::string checkpoint;  // reuse this folder (written there first when it has no model)
    std::string python = "/usr/bin/python3";
    bool torch = true;
    int tokens = 64;
};

int runLargeModelBench(const LargeModelOptions& options);

// The stages both Llama-shaped 8B rows measure on the model at `location` (a folder or a GGUF
// file), each in a child process, and the SGEMM bound of its forward.
struct LargeModelStages {
    Stage info, analyze, forward;
    Stage copyingCold, copyingCached;  // with copying scores; measured when asked
    double parameters = 0;             // of the shape's matrices
    double gflops = 0;                 // measured SGEMM throughput
    double ideal = 0;                  // seconds of 2 · parameters · tokens at that throughput
};
LargeModelStages measureLargeModel(const std::string& location, const Architecture& shape,
                                   int tokens, bool copyingScores = false);

// Opening the model at `location` and counting its parameters (what `info` prints), in a child
// process.
Stage openStage(const std::string& location);

// Seconds of analyzeModel on the model at `location` (every head), with or without the OV
// copying scores; progress on stderr.
double analysisSeconds(const std::string& location, bool copyingScores);

// The multiply-adds each token costs in a mixture of experts: its attention projections, the
// router and the experts it is routed to (the output head is not computed, as in the app's
// views).
double activeParameters(const Architecture& shape);

}  // namespace qkv::bench
