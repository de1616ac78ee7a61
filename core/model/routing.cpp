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
                                           int perToken, bool sigmoid) {
    std::vector<TokenRouting> routing(tokens);
    std::vector<int> order(experts);
    std::vector<float> weight(perToken);
    for (int t = 0; t < tokens; ++t) {
        const float* row = logits + static_cast<std::size_t>(t) * experts;
        orderDescending(row, order);
        if (sigmoid) {
            for (int i = 0; i < perToken; ++i)
                routing[t].push_back({order[i], 1.0f / (1.0f + std::exp(-row[order[i]]))});
            continue;
        }
        const float top = row[order[0]];
        float sum = 0.0f;
        for (int i = 0; i < perToken; ++i) sum += weight[i] = std::exp(row[order[i]] - top);
        for (int i = 0; i < perToken; ++i) routing[t].push_back({order[i], weight[i] / sum});
    }
    return routing;
}

std::vector<TokenRouting> routeByGroups(const float* logits, int tokens, int experts,
                                        const GroupedRouting& rule) {
    std::vector<TokenRouting> routing(tokens);
    const int perGroup = experts / rule.groups;
    std::vector<float> score(experts), choice(experts), groupValue(rule.groups), best(perGroup);
    std::vector<int> order(experts), groupOrder(rule.groups), bestOrder(perGroup);
    for (int t = 0; t < tokens; ++t) {
        const float* row = logits + static_cast<std::size_t>(t) * experts;
        if (rule.sigmoid) {
            for (int e = 0; e < experts; ++e) score[e] = 1.0f / (1.0f + std::exp(-row[e]));
        } else {
            const float top = *std::max_element(row, row + experts);
            float sum = 0.0f;
            for (int e = 0; e < experts; ++e) sum += score[e] = std::exp(row[e] - top);
            for (float& s : score) s /= sum;
        }
        for (int e = 0; e < experts; ++e)
            choice[e] = score[e] + (rule.choiceBias ? rule.choiceBias[e] : 0.0f);
        for (int g = 0; g < rule.groups; ++g) {
            std::copy_n(choice.begin() + g * perGroup, perGroup, best.begin());
            orderDescending(best.data(), bestOrder);
            groupValue[g] = 0.0f;
            for (int i = 0; i < std::min(rule.groupBest, perGroup); ++i)
                groupValue[g] += best[bestOrder[i]];
        }
        orderDescending(groupValue.data(), groupOrder);
        for (int i = rule.groupsKept; i < rule.groups; ++i)
            std::fill_n(choice.begin() + groupOrder[i] * perGroup, perGroup, 0.0f);
        orderDescending(choice.data(), order);
        float chosen = 0.0f;
        for (int i = 0; i < rule.perToken; ++i) chosen += score[order[i]];
        for (int i = 0; i < rule.perToken; ++i) {
            const float weight =
                rule.normalize ? score[order[i]] / (chosen + 1e-20f) : score[order[i]];
            routing[t].push_back({order[i], weight * rule.scale});
        }
        std::stable_sort(
            routing[t].begin(), routing[t].end(),
            [](const ExpertChoice& a, const ExpertChoice& b) { return a.weight > b.weight; });
    }
    return routing;
}

}  // namespace qkv
