#pragma once
// qkvlab-bench --shape qwen3-30b-a3b-gguf: a model larger than this machine's memory. Writes
// Qwen3-30B-A3B's shape as Ollama's q8_0 GGUF file keeps it (32.5 GB; removed afterwards, or kept
// in the --checkpoint folder, which later runs reuse) and measures, each in a child process
// (bench/child_stage.h): open + info, the analysis of every head, and forwards with every head
// captured at 1 token and at 64 (or --tokens), each started with the file out of the page cache:
// their time against 1.5x the time SGEMM needs for the parameters each token uses, and what they
// read from storage (only the experts the tokens are routed to, and the attention).
#include "bench/large_model_bench.h"

namespace qkv::bench {

int runQwen3MoeBench(const LargeModelOptions& options);

}  // namespace qkv::bench
