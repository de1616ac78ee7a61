#pragma once
// qkvlab-bench's command line.
#include <string>
#include <vector>

#include "bench/random_checkpoint.h"

namespace qkv::bench {

struct Options {
    std::vector<int> tokens = {16, 64, 256, 1024};
    std::vector<int> keystrokeTokens = {64, 256};  // texts typed into; empty: no keystroke rows
    int keystrokes = 21;                           // timed per text and round, after a warm-up
    int longTokens = 4096;                         // 0: no long-input rows
    int longRepeats = 3;
    std::vector<std::string> backends = {"cpu"};
    int repeats = 5;
    int rounds = 3;  // qkvlab then PyTorch, alternated: load that drifts hits both sides alike
    bool torch = true;
    bool train = true;
    bool profile = false;  // where the forward's time goes, per backend operation
    bool json = false;     // the whole report as one JSON object on stdout
    bool help = false;
    std::string python = "/usr/bin/python3";
    std::string checkpoint;             // reuse instead of writing a new one
    std::string shape = "gpt2";         // or llama3-8b (bench/large_model_bench.h)
    long long atlasTokens = 1'000'000;  // --shape atlas
    bool large = true;                  // --shape atlas: its 8B row
    bool analysis = true;               // --shape deepseek-v3.2: the analysis of every head
    int vocab = gpt2Small().vocab;      // smaller for devices that cannot hold wte whole
    std::string longInputChild;         // internal: measure the long input of this folder and exit

    // The token counts PyTorch runs: every forward row's and keystroke row's.
    std::vector<int> torchTokens() const;
};

// Throws qkv::Error with the usage for an unknown option or a missing value.
Options parseOptions(int argc, char** argv);
const char* usage();

}  // namespace qkv::bench
