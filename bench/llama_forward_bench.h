#pragma once
// qkvlab-bench --shape llama3.2-1b: today's most downloaded small model's shape (rope llama3,
// tied embeddings, bf16 weights, grouped-query attention). Writes the checkpoint (2.5 GB; removed
// afterwards, or kept in --checkpoint for later runs), then per round times qkvlab's forward with
// every head captured and the last position's logits (the second of two forwards), and the same
// forward in plain PyTorch — bfloat16 as stored, and float32 as qkvlab computes — at each token
// count; prints the median times and the median of the rounds' ratios against the target of 0.4x
// PyTorch.
#include <string>
#include <vector>

namespace qkv::bench {

struct LlamaForwardOptions {
    std::string checkpoint;
    std::string python = "/usr/bin/python3";
    bool torch = true;
    std::vector<int> tokens = {64, 1024};
    int rounds = 3;
};

int runLlamaForwardBench(const LlamaForwardOptions& options);

}  // namespace qkv::bench
