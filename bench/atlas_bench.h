#pragma once
// qkvlab-bench --shape atlas: the head atlas's throughput. On a GPT-2-small-shaped checkpoint
// (random weights, the shipped model's tokenizer) it computes the atlas of --atlas-tokens
// tokens of the built-in stories (default 1,000,000; 256-token sequences) and the same scores in
// a plain PyTorch loop over the same token sequences (torch_atlas.py); then qkvlab.atlas on a Dask
// LocalCluster of one and of two single-threaded workers (dask_atlas.py); then, in a child
// process whose anonymous memory is sampled, two 256-token sequences of a Llama-3-8B-shaped
// checkpoint (bf16, written once; --checkpoint keeps it). Prints each against its target.
#include <cstdint>
#include <string>

namespace qkv::bench {

struct AtlasBenchOptions {
    std::string checkpoint;  // keeps the 8B checkpoint here for later runs
    std::string python = "/usr/bin/python3";
    bool torch = true;
    std::int64_t tokens = 1'000'000;
    bool large = true;  // the Llama-3-8B-shaped row
};

int runAtlasBench(const AtlasBenchOptions& options);

}  // namespace qkv::bench
