#pragma once
// The table's rows of each backend from every round's measurements: a time is the median over
// the rounds, a ratio the median of the rounds' ratios against PyTorch's forward of as many
// tokens in the same round.
#include <functional>
#include <vector>

#include "bench/bench_report.h"
#include "bench/forward_bench.h"
#include "core/train/model_shape.h"

namespace qkv::bench {

struct ForwardTableContext {
    const std::vector<Round>& rounds;
    const Options& options;
    const train::ModelShape& shape;
    double peakGflops = 0;
    double weightBytes = 0;
};

// Adds every backend's rows; `summary` gets the CPU's headline figures: "keystroke_ms",
// "forward_ratio_vs_torch" (the app's one-head requests) and "forward_all_heads_ratio_vs_torch".
void addForwardRows(const ForwardTableContext& context, ReportTable& table, Json& summary);

// Each round's value of one measure.
std::vector<double> acrossRounds(const std::vector<Round>& rounds,
                                 const std::function<double(const Round&)>& value);

}  // namespace qkv::bench
