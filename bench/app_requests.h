#pragma once
// The forward requests the app makes (ui/compute/compute_worker.cpp), so that the rows that model
// the app time what it runs: no logits, and the capture of ui/compute/capture_policy — every
// head while all heads' n x n matrices fit its budget, else only the head on screen.
#include <random>
#include <vector>

#include "core/model/forward.h"

namespace qkv::bench {

// The app's request for `ids` with layer 0, head 0 on screen.
ForwardRequest appRequest(const Architecture& config, std::vector<int> ids);

bool capturesOneHead(const ForwardRequest& request);

// `count` ids drawn uniformly from the vocabulary.
std::vector<int> randomIds(int count, int vocab, std::mt19937& engine);

}  // namespace qkv::bench
