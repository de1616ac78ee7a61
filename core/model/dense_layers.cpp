#include "core/model/dense_layers.h"

#include <numeric>

namespace qkv {

namespace {

// x W (+ b), its columns as stored; x's columns first put in the stored inputs' order.
std::unique_ptr<Tensor> product(Backend& backend, const DeviceLinear& l, const Tensor& x) {
    auto y = backend.create(x.rows(), l.weight->cols());
    if (l.inputGather.empty()) {
        backend.linear(x, *l.weight, l.bias.get(), *y);
        return y;
    }
    auto stored = backend.create(x.rows(), static_cast<int>(l.inputGather.size()));
    backend.gatherColumns(x, nullptr, l.inputGather, *stored);
    backend.linear(*stored, *l.weight, l.bias.get(), *y);
    return y;
}

// The columns of a product of `l` that the model uses, in its order.
std::unique_ptr<Tensor> inOutputOrder(Backend& backend, const DeviceLinear& l, const Tensor& y) {
    auto ordered = backend.create(y.rows(), static_cast<int>(l.outputOrder.size()));
    backend.gatherColumns(y, nullptr, l.outputOrder, *ordered);
    return ordered;
}

}  // namespace

void scaleInPlace(Backend& backend, Tensor& y, float factor, Tensor* scratch) {
    if (factor == 1.0f) return;
    std::unique_ptr<Tensor> own;
    if (!scratch) {
        own = backend.create(y.rows(), y.cols());
        scratch = own.get();
    }
    backend.copyRows(y, 0, y.rows(), *scratch, 0);
    std::vector<int> rows(y.rows());
    std::iota(rows.begin(), rows.end(), 0);
    backend.addWeightedRows(*scratch, rows, std::vector<float>(rows.size(), factor - 1.0f), y);
}

std::unique_ptr<Tensor> applyLinear(Backend& backend, const DeviceLinear& l, const Tensor& x) {
    auto y = product(backend, l, x);
    if (!l.outputOrder.empty()) y = inOutputOrder(backend, l, *y);
    scaleInPlace(backend, *y, l.scale);
    return y;
}

std::unique_ptr<Tensor> SharedProducts::apply(const DeviceLinear& l) {
    if (l.outputOrder.empty() || !l.source) return applyLinear(m_be, l, m_x);
    const Tensor* shared = nullptr;
    for (const auto& [source, y] : m_products)
        if (source == l.source && y->cols() == l.weight->cols()) shared = y.get();
    if (!shared) shared = m_products.emplace_back(l.source, product(m_be, l, m_x)).second.get();
    auto y = inOutputOrder(m_be, l, *shared);
    scaleInPlace(m_be, *y, l.scale);
    return y;
}

std::unique_ptr<Tensor> feedForward(Backend& backend, Activation activation, const DeviceLinear& in,
                                    const DeviceLinear& gate, const DeviceLinear& out,
                                    const Tensor& x, const XIeluParameters* xielu) {
    auto hidden = applyLinear(backend, in, x);
    // `in` gives gate and up interleaved, or up alone beside `gate` (a GGUF file's gpt-oss).
    if (activation == Activation::ClampedSwiGlu && !gate.weight) {
        auto glu = backend.create(hidden->rows(), hidden->cols() / 2);
        backend.clampedSwiGlu(*hidden, *glu);
        return applyLinear(backend, out, *glu);
    }
    if (isGated(activation) || activation == Activation::ClampedSwiGlu)
        backend.glu(*applyLinear(backend, gate, x), *hidden, activation);
    else if (activation == Activation::XIelu && xielu)
        backend.xielu(*hidden, *xielu);
    else
        backend.activate(*hidden, activation);
    return applyLinear(backend, out, *hidden);
}

}  // namespace qkv
