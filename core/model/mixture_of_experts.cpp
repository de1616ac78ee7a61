#include "core/model/mixture_of_experts.h"

#include <algorithm>
#include <numeric>

namespace qkv {

std::vector<TokenRouting> routeLogits(const MixtureOfExperts& moe, const float* logits, int tokens,
                                      const std::vector<float>& choiceBias) {
    if (moe.router == Router::TopKSoftmax || moe.router == Router::TopKSigmoid)
        return routeByTopLogits(logits, tokens, moe.experts, moe.perToken,
                                moe.router == Router::TopKSigmoid);
    if (moe.router == Router::SoftmaxTopK && moe.groups == 1 && moe.scale == 1.0f)
        return routeBySoftmax(logits, tokens, moe.experts, moe.perToken, moe.normalizeTopK);
    GroupedRouting rule;
    rule.sigmoid = moe.router == Router::SigmoidTopK;
    rule.groups = moe.groups;
    rule.groupsKept = moe.groupsKept;
    // Hugging Face ranks DeepSeek-V3's groups by their two best values, V2's by the best.
    rule.groupBest = rule.sigmoid ? 2 : 1;
    rule.perToken = moe.perToken;
    rule.normalize = moe.normalizeTopK;
    rule.scale = moe.scale;
    rule.choiceBias = choiceBias.empty() ? nullptr : choiceBias.data();
    return routeByGroups(logits, tokens, moe.experts, rule);
}

std::vector<TokenRouting> routeTokens(Backend& backend, const Architecture& c,
                                      const DeviceLayer& layer, const Tensor& x) {
    std::vector<float> logits(static_cast<std::size_t>(x.rows()) * c.moe.experts);
    backend.download(*applyLinear(backend, layer.router, x), logits.data());
    return routeLogits(c.moe, logits.data(), x.rows(), layer.routerChoiceBias);
}

std::unique_ptr<Tensor> mixtureOfExperts(Backend& backend, const Architecture& c,
                                         const DeviceLayer& layer, const Tensor& x,
                                         std::vector<TokenRouting>& routing) {
    const int tokens = x.rows(), experts = c.moe.experts;
    routing = routeTokens(backend, c, layer, x);

    // Each expert's tokens (ascending) and the weight of its output for each.
    std::vector<std::vector<int>> rows(experts);
    std::vector<std::vector<float>> weights(experts);
    for (int t = 0; t < tokens; ++t)
        for (const ExpertChoice& choice : routing[t]) {
            rows[choice.expert].push_back(t);
            weights[choice.expert].push_back(choice.weight);
        }
    std::vector<int> chosen;  // the experts some token chose, ascending
    for (int e = 0; e < experts; ++e)
        if (!rows[e].empty()) chosen.push_back(e);
    for (int e : chosen)
        for (const DeviceLinear* linear :
             {&layer.experts[e].in, &layer.experts[e].gate, &layer.experts[e].out})
            if (linear->weight) backend.prefetch(*linear->weight);
    // Their outputs, computed at once where the backend can (the busiest experts first, so
    // that no thread is left with a long one at the end), then summed in expert order.
    std::vector<int> busiestFirst(chosen.size());
    std::iota(busiestFirst.begin(), busiestFirst.end(), 0);
    std::stable_sort(busiestFirst.begin(), busiestFirst.end(),
                     [&](int a, int b) { return rows[chosen[a]].size() > rows[chosen[b]].size(); });
    std::vector<std::unique_ptr<Tensor>> outputs(chosen.size());
    backend.forEachItem(static_cast<int>(chosen.size()), [&](Backend& b, int item) {
        const int i = busiestFirst[item];
        const DeviceExpert& expert = layer.experts[chosen[i]];
        const int count = static_cast<int>(rows[chosen[i]].size());
        auto routed = b.create(count, x.cols());
        b.gatherRows(x, rows[chosen[i]], *routed);
        if (c.moe.weighsInput) {  // the weights scale the expert's input: 0 + w · x, exactly
            const std::vector<float> zeros(static_cast<std::size_t>(count) * x.cols(), 0.0f);
            auto scaled = b.upload(zeros.data(), count, x.cols());
            std::vector<int> own(count);
            std::iota(own.begin(), own.end(), 0);
            b.addWeightedRows(*routed, own, weights[chosen[i]], *scaled);
            routed = std::move(scaled);
        }
        outputs[i] = feedForward(b, c.activation, expert.in, expert.gate, expert.out, *routed);
    });
    const std::vector<float> zeros(static_cast<std::size_t>(tokens) * x.cols(), 0.0f);
    auto sum = backend.upload(zeros.data(), tokens, x.cols());
    for (std::size_t i = 0; i < chosen.size(); ++i) {
        const std::vector<float>& weight = weights[chosen[i]];
        backend.addWeightedRows(
            *outputs[i], rows[chosen[i]],
            c.moe.weighsInput ? std::vector<float>(weight.size(), 1.0f) : weight, *sum);
    }
    if (!layer.mlpIn.weight) return sum;
    auto shared = feedForward(backend, c.activation, layer.mlpIn, layer.mlpGate, layer.mlpOut, x);
    if (layer.sharedExpertGate.weight) {
        // σ(x · shared_expert_gate), one logit per token spread over its row, on the device: the
        // routing's is the layer's only wait for the host.
        auto logit = applyLinear(backend, layer.sharedExpertGate, x);
        auto spread = backend.create(tokens, shared->cols());
        backend.gatherColumns(*logit, nullptr, std::vector<int>(shared->cols(), 0), *spread);
        backend.glu(*spread, *shared, Activation::SigmoidGlu);
    }
    backend.add(*sum, *shared);
    return sum;
}

}  // namespace qkv
