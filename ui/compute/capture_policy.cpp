#include "ui/compute/capture_policy.h"

namespace qkv::ui {

CaptureSelection capturePolicy(const Architecture& config, int tokens, int traces, int layer,
                               int head, bool captureAll) {
    CaptureSelection all;
    if (captureAll) return all;
    const std::size_t n = static_cast<std::size_t>(tokens);
    const std::size_t perHead = n * n * sizeof(float) * 2;  // scores and probabilities
    const std::size_t bytes = perHead * static_cast<std::size_t>(config.layers) *
                              static_cast<std::size_t>(config.heads) *
                              static_cast<std::size_t>(traces);
    if (bytes <= kCaptureBudgetBytes) return all;
    CaptureSelection one;
    one.layer = layer;
    one.head = head;
    one.allVectors = false;  // the views read the shown head's q, k and v only
    return one;
}

}  // namespace qkv::ui
