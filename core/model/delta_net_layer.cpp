#include "core/model/delta_net_layer.h"

#include <cmath>
#include <vector>

#include "core/model/dense_layers.h"

namespace qkv {
namespace {

class DeltaNetLayer {
  public:
    DeltaNetLayer(Backend& backend, const Architecture& c, const DeviceLayer& layer,
                  const Tensor& x)
        : m_be(backend), m_c(c), m_w(layer), m_products(backend, x) {}

    // x times a projection of the layer (Qwen3-Next's slots share one fused product).
    std::unique_ptr<Tensor> projected(const DeviceLinear& weights) {
        return m_products.apply(weights);
    }

    // A projection through its own convolution taps and SiLU, computed once per projection.
    Tensor& convolved(Projection p) {
        auto& slot = m_convolved[static_cast<int>(p)];
        if (slot) return *slot;
        const DeviceLinear& weights = p == Projection::Query ? m_w.query
                                      : p == Projection::Key ? m_w.key
                                                             : m_w.value;
        const Tensor& taps = p == Projection::Query ? *m_w.deltaNet.queryTaps
                             : p == Projection::Key ? *m_w.deltaNet.keyTaps
                                                    : *m_w.deltaNet.valueTaps;
        auto raw = projected(weights);
        slot = m_be.create(raw->rows(), raw->cols());
        m_be.causalConv(*raw, taps, nullptr, *slot);
        m_be.activate(*slot, Activation::Silu);
        return *slot;
    }

    // A query or key slot: unit vectors per key head, once per projection (shared-qk's two
    // slots read the same tensor).
    Tensor& unitHeads(Projection p, int keyDim) {
        auto& unit = m_unit[static_cast<int>(p)];
        if (unit) return *unit;
        Tensor& raw = convolved(p);
        unit = m_be.create(raw.rows(), raw.cols());
        m_be.normalizeHeads(raw, keyDim, m_c.deltaNet.unitNormEps, *unit);
        return *unit;
    }

    // The value slot, one head per value head: a key-head projection (tied-kv) is repeated for
    // the value heads that read it.
    Tensor& values(Projection p, int valueHeads, int keyHeads, int width) {
        Tensor& raw = convolved(p);
        if (p == Projection::Value || valueHeads == keyHeads) return raw;
        std::vector<int> columns;
        for (int h = 0; h < valueHeads; ++h)
            for (int i = 0; i < width; ++i)
                columns.push_back(h / (valueHeads / keyHeads) * width + i);
        m_expanded = m_be.create(raw.rows(), valueHeads * width);
        m_be.gatherColumns(raw, nullptr, columns, *m_expanded);
        return *m_expanded;
    }

  private:
    Backend& m_be;
    const Architecture& m_c;
    const DeviceLayer& m_w;
    SharedProducts m_products;
    std::unique_ptr<Tensor> m_convolved[3], m_unit[3];
    std::unique_ptr<Tensor> m_expanded;
};

void keepVectors(Backend& be, const Tensor& t, RowMatrixXf& target) {
    target.resize(t.rows(), t.cols());
    be.enqueueDownload(t, target.data());
}

}  // namespace

std::unique_ptr<Tensor> runDeltaNet(Backend& be, const Architecture& model, const DeviceLayer& w,
                                    const DeltaNetRequest& request, const Tensor& x,
                                    LayerTrace& traced) {
    const int l = request.layer, n = x.rows();
    const Architecture c = model.atLayer(l);
    const WConfiguration& config = *request.config;
    const DeltaRuleLayout layout{c.kvHeads, c.heads, c.headDim, c.valueWidth(),
                                 1.0f / std::sqrt(static_cast<float>(c.headDim))};
    DeltaNetLayer layer(be, model, w, x);
    Tensor& q = layer.unitHeads(config.querySource, c.headDim);
    Tensor& k = layer.unitHeads(config.keySource, c.headDim);
    Tensor& v = layer.values(config.valueSource, c.heads, c.kvHeads, c.valueWidth());
    auto b = layer.projected(w.deltaNet.b);
    auto a = layer.projected(w.deltaNet.a);

    const CaptureSelection& wanted = *request.capture;
    traced.implicit = true;
    traced.scores.assign(c.heads, RowMatrixXf());
    traced.probabilities.assign(c.heads, RowMatrixXf());
    AttentionCapture capture;
    capture.scores.assign(c.heads, nullptr);
    capture.probabilities.assign(c.heads, nullptr);
    for (int h = 0; h < c.heads; ++h)
        if (wanted.includes(l, h) && wanted.probabilities) {
            traced.probabilities[h].resize(n, n);
            capture.probabilities[h] = traced.probabilities[h].data();
        }
    auto core = be.create(n, c.heads * c.valueWidth());
    be.gatedDeltaRule(q, k, v, *b, *a, *w.deltaNet.aLog, *w.deltaNet.dtBias, layout, *core,
                      &capture);
    const int group = c.heads / c.kvHeads;
    traced.layout = {c.heads, c.headDim, group, group, 1, c.valueWidth()};
    if (wanted.keepsVectors(l)) {
        keepVectors(be, q, traced.query);
        keepVectors(be, k, traced.key);
        keepVectors(be, v, traced.value);
    }

    auto normed = be.create(n, core->cols());
    be.rmsNormHeads(*core, c.valueWidth(), *w.deltaNet.norm.gamma, c.normEps, *normed);
    be.glu(*layer.projected(w.deltaNet.z), *normed, Activation::SwiGlu);
    return applyLinear(be, w.output, *normed);
}

}  // namespace qkv
