#pragma once
// qkvlab-bench --shape qwen3.5-9b: a hybrid at Qwen3.5-9B's shape — 24 Gated DeltaNet layers and 8
// gated full-attention layers, its text model in bf16 (a random checkpoint of 17.9 GB; removed
// afterwards, or kept in the --checkpoint folder, which later runs reuse). Measured each in a
// child process (bench/child_stage.h): open + info (<= 1 s), analyze every head (<= 90 s), and
// a forward at 64 tokens (or --tokens) capturing every head, implicit maps included, against
// 1.5x the time SGEMM needs for its matrices (<= 3 GB anonymous memory); then a --long-tokens
// (4096) one-head request on a linear layer against the same request on a full-attention layer
// (<= 2x), on the model's first four layers (three linear, one full: the same shards under a
// config that stops there, so that each request is the layer and what feeds it, not 32 layers).
#include "bench/large_model_bench.h"

namespace qkv::bench {

int runQwen35Bench(const LargeModelOptions& options, int longTokens);

}  // namespace qkv::bench
