#pragma once
// What a mixture-of-experts layer decided for one token: the experts it was sent to and the
// weight of each one's output, heaviest first.
#include <vector>

namespace qkv {

struct ExpertChoice {
    int expert = 0;
    float weight = 0.0f;
};

using TokenRouting = std::vector<ExpertChoice>;

// Hugging Face's softmax routing (Mixtral, Qwen3-MoE): per token (a row of `experts` router
// logits) a float32 softmax over all experts, the `perToken` most probable (ties to the lower
// index), divided by their sum when `normalize`.
std::vector<TokenRouting> routeBySoftmax(const float* logits, int tokens, int experts, int perToken,
                                         bool normalize);
// gpt-oss's routing: per token the `perToken` largest logits (ties to the lower index), weighed
// by a float32 softmax over those alone.
std::vector<TokenRouting> routeByTopLogits(const float* logits, int tokens, int experts,
                                           int perToken);

}  // namespace qkv
