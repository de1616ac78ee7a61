#pragma once
// qkvlab-bench --shape deepseek-v3.2: a model too large for this machine's memory, opened from
// its mapped files. DeepSeek-V3.2 (671B) as the Hub stores it (FP8 blocks, the lightning indexer,
// 256 routed experts per layer), from its real config.json, written sparse: zeros as holes, only
// the embedding and the routers random, so each token is routed to its own experts (about 2 GB
// of disk; removed afterwards, or kept in the --checkpoint folder). Measured each in a child
// process (bench/child_stage.h) with the checkpoint out of the page cache before it: open + info,
// a forward of 4 tokens (or --tokens) and the analysis of every head layer by layer; after each,
// the pages of every tensor it read (bench/page_residency.h). The routed experts whose pages the
// forward read are compared with the experts the router picks for those tokens, computed here
// from the embedding rows and the router weights.
#include "bench/large_model_bench.h"

namespace qkv::bench {

// `analysis` false leaves the analysis of every head out (40 minutes on two cores).
int runDeepSeekV32Bench(const LargeModelOptions& options, bool analysis);

}  // namespace qkv::bench
