#pragma once
// A benchmark stage measured in a child process: its own seconds (as the child timed them) and
// its peak anonymous resident memory (RssAnon, sampled every 10 ms: mapped weights are file pages,
// not counted), printed as a row against its targets; and the forward such stages time.
#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "core/model/forward.h"

namespace qkv::bench {

struct Stage {
    double seconds = -1;  // as the child measured it; < 0: failed
    std::uint64_t peakAnon = 0;
    std::string error;
};

// Runs `work` (which returns the seconds of what it times) in a child process. The caller must
// have started no threads, so that forking is safe; each stage's memory is its own.
Stage inChild(const std::function<double()>& work);

// "what   seconds (<= limit)   memory (<= limit)   met|MISSED note", or the stage's failure.
void printRow(const char* what, const Stage& stage, double limitSeconds, std::uint64_t limitAnon,
              const std::string& note = {});

// Opens the model in `dir` and runs `request` on the CPU once, then kCachedForwards times more:
// the seconds of the fastest of those (the first also reads the mapped weights from the page
// cache or disk). The best, as the SGEMM rate it is compared with is the best of its windows:
// both then measure the machine at its least disturbed. Every time goes to stderr.
constexpr int kCachedForwards = 3;
double cachedForwardSeconds(const std::string& dir, const ForwardRequest& request);

// Opens the model at `location` and runs one forward of `ids` on the CPU with every head captured
// and no logits, the layers' progress on stderr as the app shows it, `afterLayer` (when given)
// called with each layer's index once it is computed: the forward's seconds.
double forwardSeconds(const std::filesystem::path& location, const std::vector<int>& ids,
                      const std::function<void(int layer)>& afterLayer = {});

// `count` token ids drawn uniformly from the vocabulary (the same ones every run).
std::vector<int> randomIds(int count, int vocab);

}  // namespace qkv::bench
