#include "core/model/mixture_of_experts.h"

namespace qkv {

std::unique_ptr<Tensor> applyLinear(Backend& backend, const DeviceLinear& l, const Tensor& x) {
    auto y = backend.create(x.rows(), l.weight->cols());
    backend.linear(x, *l.weight, l.bias.get(), *y);
    return y;
}

std::unique_ptr<Tensor> feedForward(Backend& backend, Activation activation, const DeviceLinear& in,
                                    const DeviceLinear& gate, const DeviceLinear& out,
                                    const Tensor& x) {
    auto hidden = applyLinear(backend, in, x);
    if (activation == Activation::ClampedSwiGlu) {  // `in` gives gate and up interleaved
        auto glu = backend.create(hidden->rows(), hidden->cols() / 2);
        backend.clampedSwiGlu(*hidden, *glu);
        return applyLinear(backend, out, *glu);
    }
    if (isGated(activation))
        backend.glu(*applyLinear(backend, gate, x), *hidden, activation);
    else
        backend.activate(*hidden, activation);
    return applyLinear(backend, out, *hidden);
}

std::unique_ptr<Tensor> mixtureOfExperts(Backend& backend, const Architecture& c,
                                         const DeviceLayer& layer, const Tensor& x,
                                         std::vector<TokenRouting>& routing) {
    const int tokens = x.rows(), experts = c.moe.experts;
    std::vector<float> logits(static_cast<std::size_t>(tokens) * experts);
    backend.download(*applyLinear(backend, layer.router, x), logits.data());
    routing =
        c.moe.router == Router::TopKSoftmax
            ? routeByTopLogits(logits.data(), tokens, experts, c.moe.perToken)
            : routeBySoftmax(logits.data(), tokens, experts, c.moe.perToken, c.moe.normalizeTopK);

    // Each expert's tokens (ascending) and the weight of its output for each.
    std::vector<std::vector<int>> rows(experts);
    std::vector<std::vector<float>> weights(experts);
    for (int t = 0; t < tokens; ++t)
        for (const ExpertChoice& choice : routing[t]) {
            rows[choice.expert].push_back(t);
            weights[choice.expert].push_back(choice.weight);
        }
    const std::vector<float> zeros(static_cast<std::size_t>(tokens) * x.cols(), 0.0f);
    auto sum = backend.upload(zeros.data(), tokens, x.cols());
    for (int e = 0; e < experts; ++e) {
        if (rows[e].empty()) continue;
        const DeviceExpert& expert = layer.experts[e];
        auto routed = backend.create(static_cast<int>(rows[e].size()), x.cols());
        backend.gatherRows(x, rows[e], *routed);
        auto output =
            feedForward(backend, c.activation, expert.in, expert.gate, expert.out, *routed);
        backend.addWeightedRows(*output, rows[e], weights[e], *sum);
    }
    return sum;
}

}  // namespace qkv
