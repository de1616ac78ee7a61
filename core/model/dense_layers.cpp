#include "core/model/dense_layers.h"

namespace qkv {

std::unique_ptr<Tensor> applyLinear(Backend& backend, const DeviceLinear& l, const Tensor& x) {
    auto y = backend.create(x.rows(), l.weight->cols());
    backend.linear(x, *l.weight, l.bias.get(), *y);
    if (l.outputOrder.empty()) return y;
    auto ordered = backend.create(x.rows(), static_cast<int>(l.outputOrder.size()));
    backend.gatherColumns(*y, nullptr, l.outputOrder, *ordered);
    return ordered;
}

std::unique_ptr<Tensor> SharedProducts::apply(const DeviceLinear& l) {
    if (l.outputOrder.empty() || !l.source) return applyLinear(m_be, l, m_x);
    const Tensor* product = nullptr;
    for (const auto& [source, y] : m_products)
        if (source == l.source && y->cols() == l.weight->cols()) product = y.get();
    if (!product) {
        auto y = m_be.create(m_x.rows(), l.weight->cols());
        m_be.linear(m_x, *l.weight, l.bias.get(), *y);
        product = m_products.emplace_back(l.source, std::move(y)).second.get();
    }
    auto ordered = m_be.create(m_x.rows(), static_cast<int>(l.outputOrder.size()));
    m_be.gatherColumns(*product, nullptr, l.outputOrder, *ordered);
    return ordered;
}

std::unique_ptr<Tensor> feedForward(Backend& backend, Activation activation, const DeviceLinear& in,
                                    const DeviceLinear& gate, const DeviceLinear& out,
                                    const Tensor& x) {
    auto hidden = applyLinear(backend, in, x);
    // `in` gives gate and up interleaved, or up alone beside `gate` (a GGUF file's gpt-oss).
    if (activation == Activation::ClampedSwiGlu && !gate.weight) {
        auto glu = backend.create(hidden->rows(), hidden->cols() / 2);
        backend.clampedSwiGlu(*hidden, *glu);
        return applyLinear(backend, out, *glu);
    }
    if (isGated(activation) || activation == Activation::ClampedSwiGlu)
        backend.glu(*applyLinear(backend, gate, x), *hidden, activation);
    else
        backend.activate(*hidden, activation);
    return applyLinear(backend, out, *hidden);
}

}  // namespace qkv
