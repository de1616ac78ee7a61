#pragma once
// qkvlab-bench --shape llama3.1-8b-gguf: a Llama-3.1-8B-shaped Q4_K_M GGUF file (random_gguf.h;
// removed afterwards, or kept in the --checkpoint folder, which later runs reuse), measured as
// the bf16 8B row is — open + info, analyze of every head, a 64-token forward capturing one
// head, each in a child process with its peak anonymous memory — against the GGUF issue's
// targets: open <= 0.5 s, analyze <= 90 s, the forward <= 2x its SGEMM bound, <= 3 GB anonymous.
#include "bench/large_model_bench.h"

namespace qkv::bench {

int runGgufBench(const LargeModelOptions& options);

}  // namespace qkv::bench
