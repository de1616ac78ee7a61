#pragma once
// Next-token loss of a model on a token stream with the inference forward (ForwardPass, all
// positions' logits), in the windows of corpus.h's evaluationWindows: the number `evaluate`
// reports, and the same windows training validates on.
#include <atomic>
#include <cstddef>
#include <functional>
#include <vector>

#include "core/model/forward.h"

namespace qkv::train {

struct Evaluation {
    double loss = 0;         // mean cross-entropy in nats per token
    double perplexity = 0;   // exp(loss)
    std::size_t tokens = 0;  // predictions scored
};

// Throws qkv::Error for a stream of fewer than two tokens or ids outside the vocabulary, and
// qkv::Cancelled when `cancel` is raised. onWindow(done, total) reports progress.
Evaluation evaluateStream(const ForwardPass& forward, const std::vector<int>& stream,
                          const std::atomic<bool>* cancel = nullptr,
                          const std::function<void(std::size_t, std::size_t)>& onWindow = {});

}  // namespace qkv::train
