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
// by a float32 softmax over those alone; with `sigmoid` (Llama 4) each by its float32 sigmoid.
std::vector<TokenRouting> routeByTopLogits(const float* logits, int tokens, int experts,
                                           int perToken, bool sigmoid = false);

// DeepSeek's routing. Per token each expert gets a float32 score, a softmax over every expert
// (V2) or the sigmoid of its logit (V3), and a choice value: the score plus `choiceBias` (V3's
// e_score_correction_bias; null: none). The experts form `groups` equal groups, each ranked by
// the sum of its `groupBest` best choice values; experts outside the `groupsKept` best groups
// choose with the value 0, as Hugging Face masks them. The `perToken` largest choice values win
// (ties to the lower index), weighed by their scores — divided by the scores' sum when
// `normalize` — times `scale`.
struct GroupedRouting {
    bool sigmoid = false;
    int groups = 1;
    int groupsKept = 1;
    int groupBest = 1;
    int perToken = 1;
    bool normalize = false;
    float scale = 1.0f;
    const float* choiceBias = nullptr;
};
std::vector<TokenRouting> routeByGroups(const float* logits, int tokens, int experts,
                                        const GroupedRouting& rule);

}  // namespace qkv
