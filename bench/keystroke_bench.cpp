#include "bench/keystroke_bench.h"

#include <algorithm>
#include <climits>

#include "bench/app_requests.h"
#include "bench/bench_common.h"
#include "core/model/prefix_reuse.h"

namespace qkv::bench {

KeystrokeResult measureKeystrokes(const ForwardPass& pass, std::vector<int> ids, int keystrokes,
                                  int repeats) {
    const int vocab = pass.model().architecture().vocabSize;
    // The last id alternates between two values, so that every keystroke is an edit.
    const int first = ids.back(), second = (first + 1) % vocab;
    ForwardRequest request = appRequest(pass.model().architecture(), std::move(ids));
    ReusingForward reusing(pass);
    auto type = [&](int k) {
        request.ids.back() = k % 2 == 0 ? first : second;
        const auto start = Clock::now();
        reusing.run(request);
        return seconds(start);
    };
    // The first run computes whole; the next two warm the reuse's own buffers.
    constexpr int kWarmUp = 3;
    for (int k = 0; k < kWarmUp; ++k) type(k);

    KeystrokeResult result;
    result.tokens = static_cast<int>(request.ids.size());
    result.keystrokes = keystrokes;
    result.oneHead = capturesOneHead(request);
    result.reusedFewest = INT_MAX;
    std::vector<double> times;
    for (int k = kWarmUp; k < kWarmUp + keystrokes; ++k) {
        times.push_back(type(k));
        result.reusedFewest = std::min(result.reusedFewest, reusing.reusedTokens());
        result.reusedMost = std::max(result.reusedMost, reusing.reusedTokens());
    }
    result.seconds = median(times);

    std::vector<double> whole;
    for (int r = 0; r < repeats; ++r) {
        const auto start = Clock::now();
        pass.run(request);
        whole.push_back(seconds(start));
    }
    result.fullSeconds = median(whole);
    return result;
}

}  // namespace qkv::bench
