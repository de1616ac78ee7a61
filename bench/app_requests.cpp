#include "bench/app_requests.h"

#include "ui/compute/capture_policy.h"

namespace qkv::bench {

ForwardRequest appRequest(const Architecture& config, std::vector<int> ids) {
    ForwardRequest request;
    request.capture = ui::capturePolicy(config, static_cast<int>(ids.size()), 1, 0, 0, false);
    request.ids = std::move(ids);
    request.logits = LogitsMode::None;
    return request;
}

bool capturesOneHead(const ForwardRequest& request) { return request.capture.head.has_value(); }

std::vector<int> randomIds(int count, int vocab, std::mt19937& engine) {
    std::uniform_int_distribution<int> id(0, vocab - 1);
    std::vector<int> ids(count);
    for (int& i : ids) i = id(engine);
    return ids;
}

}  // namespace qkv::bench
