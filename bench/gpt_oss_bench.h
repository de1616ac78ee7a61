#pragma once
// qkvlab-bench --shape gpt-oss-20b: gpt-oss-20b as the Hub stores it, its experts in MXFP4 (a
// random checkpoint of that shape, 13 GB; removed afterwards, or kept in the --checkpoint folder,
// which later runs reuse). Measured each in a child process (bench/child_stage.h): open + info,
// and a forward at 64 tokens (or --tokens) with every head captured, whose experts are decoded
// block by block from the mapped file, against 1.5x the time SGEMM needs for the parameters each
// token uses. PyTorch is no peer here: the one this machine has does not know gpt-oss.
#include "bench/large_model_bench.h"

namespace qkv::bench {

int runGptOssBench(const LargeModelOptions& options);

}  // namespace qkv::bench
