#pragma once
// One round's forward measurements of a backend: forward + capture of every head at each token
// count, the app's one-head request where the app would make it, and keystrokes.
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "bench/bench_options.h"
#include "bench/keystroke_bench.h"
#include "core/model/model.h"

namespace qkv::bench {

struct BackendRun {
    std::string name;
    double bindSeconds = 0;                   // weight upload
    std::vector<double> forwardSeconds;       // per token count
    std::vector<std::uint64_t> peakRss;       // per token count, since the previous reset
    std::vector<double> oneHeadSeconds;       // per token count; 0 where the app keeps every head
    std::vector<KeystrokeResult> keystrokes;  // per keystroke token count
};

// One round's measurements of every backend (a backend that cannot run the model is skipped
// with its reason) and of PyTorch.
struct Round {
    std::vector<BackendRun> runs;
    std::vector<std::string> skipped;
    nlohmann::json torch;
};

BackendRun measureBackend(const std::string& choice, const Model& model, const Options& o);

}  // namespace qkv::bench
