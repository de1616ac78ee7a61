#include "core/model/routing.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace qkv {

std::vector<TokenRouting> routeBySoftmax(const float* logits, int tokens, int experts, int perToken,
                                         bool normalize) {
    std::vector<TokenRouting> routing(tokens);
    std::vector<float> probability(experts);
    std::vector<int> order(experts);
    for (int t = 0; t < tokens; ++t) {
        const float* row = logits + static_cast<std::size_t>(t) * experts;
        const float top = *std::max_element(row, row + experts);
        float sum = 0.0f;
        for (int e = 0; e < experts; ++e) sum += probability[e] = std::exp(row[e] - top);
        for (float& p : probability) p /= sum;
        std::iota(order.begin(), order.end(), 0);
        std::stable_sort(order.begin(), order.end(),
                         [&](int a, int b) { return probability[a] > probability[b]; });
        float chosen = 0.0f;
        for (int i = 0; i < perToken; ++i) chosen += probability[order[i]];
        for (int i = 0; i < perToken; ++i) {
            const float p = probability[order[i]];
            routing[t].push_back({order[i], normalize ? p / chosen : p});
        }
    }
    return routing;
}

}  // namespace qkv
