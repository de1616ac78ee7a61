#pragma once
// Next-token loss of a model on a token stream with the inference forward (ForwardPass, all
// positions' logits), in the windows of corpus.h's evaluationWindows: the number `evaluate`
// reports, and the same windows training validates on.
#include <atomic>
#include <cstddef>
#include <functional>
#include <vector>

#include "core/model/forward.h"
#include "core/train/relation_probe.h"

namespace qkv::train {

struct Evaluation {
    double loss = 0;         // mean cross-entropy in nats per token
    double perplexity = 0;   // exp(loss)
    std::size_t tokens = 0;  // predictions scored
};

// Throws qkv::Error for a stream of fewer than two tokens or ids outside the vocabulary, and
// qkv::Cancelled when `cancel` is raised. onWindow(done, total) reports progress.
Evaluation evaluateStream(const ForwardPass& forward, const std::vector<int>& stream,
                          const WConfiguration& config = {},
                          const std::atomic<bool>* cancel = nullptr,
                          const std::function<void(std::size_t, std::size_t)>& onWindow = {});

// The relation probe (relation_probe.h) with the inference forward under `config`.
RelationScore evaluateRelations(const ForwardPass& forward,
                                const std::vector<TokenizedRelation>& relations,
                                const WConfiguration& config = {});

// The inference configuration a model trained by the lab needs: config.json's
// "qkvlab_attention_tying" when WConfiguration knows it (scale-outside and shared-qk-reformer
// change the forward itself; the tyings are in the weights already), else learned.
WConfiguration trainedConfiguration(const std::filesystem::path& modelFolder);

}  // namespace qkv::train
