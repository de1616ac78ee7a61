#include "core/model/latent_attention.h"

#include "core/model/dense_layers.h"

namespace qkv {
namespace {

// Dim i of a head's rotary part in the rotate-half order: the checkpoint's even dims first.
int rotaryDim(const LatentAttention& l, int i) {
    if (!l.interleavedRope) return i;
    const int half = l.ropeDim / 2;
    return i < half ? 2 * i : 2 * (i - half) + 1;
}

}  // namespace

std::vector<int> latentQueryColumns(const Architecture& c) {
    const LatentAttention& l = c.latent;
    std::vector<int> columns;
    for (int h = 0; h < c.heads; ++h) {
        const int head = h * c.headDim;  // stored [nope | rope]
        for (int i = 0; i < l.ropeDim; ++i) columns.push_back(head + l.nopeDim + rotaryDim(l, i));
        for (int i = 0; i < l.nopeDim; ++i) columns.push_back(head + i);
    }
    return columns;
}

std::vector<int> latentKeyColumns(const Architecture& c) {
    const LatentAttention& l = c.latent;
    const int stored = l.nopeDim + c.valueWidth();  // a head's [key nope | value]
    std::vector<int> columns;
    for (int h = 0; h < c.heads; ++h) {
        for (int i = 0; i < l.ropeDim; ++i) columns.push_back(rotaryDim(l, i));
        for (int i = 0; i < l.nopeDim; ++i) columns.push_back(l.ropeDim + h * stored + i);
    }
    return columns;
}

std::vector<int> latentValueColumns(const Architecture& c) {
    const int stored = c.latent.nopeDim + c.valueWidth();
    std::vector<int> columns;
    for (int h = 0; h < c.heads; ++h)
        for (int i = 0; i < c.valueWidth(); ++i)
            columns.push_back(h * stored + c.latent.nopeDim + i);
    return columns;
}

LatentProjection::LatentProjection(Backend& backend, const Architecture& config,
                                   const DeviceLatentAttention& weights)
    : m_be(backend), m_c(config), m_w(weights) {}

std::unique_ptr<Tensor> LatentProjection::normed(const DeviceNorm& n,
                                                 std::unique_ptr<Tensor> x) const {
    auto y = m_be.create(x->rows(), x->cols());
    m_be.rmsNorm(*x, *n.gamma, m_c.latent.normEps, *y);
    return y;
}

const Tensor& LatentProjection::queryLatent(const Tensor& x) {
    if (m_queryLatentOf != &x) {
        m_queryLatent = normed(m_w.queryNorm, applyLinear(m_be, m_w.queryDown, x));
        m_queryLatentOf = &x;
    }
    return *m_queryLatent;
}

void LatentProjection::computeLatent(const Tensor& x) {
    if (m_latentOf == &x) return;
    m_rotaryKey = applyLinear(m_be, m_w.rotaryKey, x);
    m_keyValue = applyLinear(m_be, m_w.keyValueUp,
                             *normed(m_w.latentNorm, applyLinear(m_be, m_w.latent, x)));
    m_latentOf = &x;
}

std::unique_ptr<Tensor> LatentProjection::project(Projection projection, const Tensor& x) {
    const int rows = x.rows();
    if (projection == Projection::Query) {
        auto stored = m_w.queryDown.weight ? applyLinear(m_be, m_w.queryUp, queryLatent(x))
                                           : applyLinear(m_be, m_w.queryUp, x);
        auto q = m_be.create(rows, m_c.heads * m_c.headDim);
        m_be.gatherColumns(*stored, nullptr, latentQueryColumns(m_c), *q);
        return q;
    }
    computeLatent(x);
    if (projection == Projection::Key) {
        auto k = m_be.create(rows, m_c.heads * m_c.headDim);
        m_be.gatherColumns(*m_rotaryKey, m_keyValue.get(), latentKeyColumns(m_c), *k);
        return k;
    }
    auto v = m_be.create(rows, m_c.heads * m_c.valueWidth());
    m_be.gatherColumns(*m_keyValue, nullptr, latentValueColumns(m_c), *v);
    return v;
}

}  // namespace qkv
