#include "core/model/routing.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace qkv {

namespace {

// The indices of `values` from the largest down, ties to the lower index.
void orderDescending(const float* values, std::vector<int>& order) {
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(),
                     [&](int a, int b) { return values[a] > values[b]; });
}

}  // namespace

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
        orderDescending(probability.data(), order);
        float chosen = 0.0f;
        for (int i = 0; i < perToken; ++i) chosen += probability[order[i]];
        for (int i = 0; i < perToken; ++i) {
            const float p = probability[order[i]];
            routing[t].push_back({order[i], normalize ? p / chosen : p});
        }
    }
    return routing;
}

std::vector<TokenRouting> routeByTopLogits(const float* logits, int tokens, int experts,
                                           int perToken) {
    std::vector<TokenRouting> routing(tokens);
    std::vector<int> order(experts);
    std::vector<float> weight(perToken);
    for (int t = 0; t < tokens; ++t) {
        const float* row = logits + static_cast<std::size_t>(t) * experts;
        orderDescending(row, order);
        const float top = row[order[0]];
        float sum = 0.0f;
        for (int i = 0; i < perToken; ++i) sum += weight[i] = std::exp(row[order[i]] - top);
        for (int i = 0; i < perToken; ++i) routing[t].push_back({order[i], weight[i] / sum});
    }
    return routing;
}

}  // namespace qkv
