#pragma once
// Keystroke -> result as the app computes it: one qkv::ReusingForward kept across keystrokes, each
// request the previous ids with the last one changed (a character typed at the end of a word
// re-tokenises that word), under the app's request for that length (bench/app_requests.h).
#include <vector>

#include "core/model/forward.h"

namespace qkv::bench {

struct KeystrokeResult {
    int tokens = 0;
    int keystrokes = 0;      // timed
    double seconds = 0;      // median keystroke -> result
    double fullSeconds = 0;  // median forward of the same request computed whole
    int reusedFewest = 0;    // reusedTokens() over the timed keystrokes
    int reusedMost = 0;
    bool oneHead = false;  // the app's capture at this length: one head, not every head
};

// Types `keystrokes` timed keystrokes at the end of `ids` after a warm-up, then computes the last
// request whole `repeats` times.
KeystrokeResult measureKeystrokes(const ForwardPass& pass, std::vector<int> ids, int keystrokes,
                                  int repeats);

}  // namespace qkv::bench
