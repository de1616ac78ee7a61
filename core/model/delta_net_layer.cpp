#include "core/model/delta_net_layer.h"

#include <cmath>
#include <vector>

namespace qkv {
namespace {

class DeltaNetLayer {
  public:
    DeltaNetLayer(Backend& backend, const Architecture& c, const DeviceLayer& layer,
                  const Tensor& x)
        : m_be(backend), m_c(c), m_slots(backend, layer, x) {}

    std::unique_ptr<Tensor> projected(const DeviceLinear& weights) {
        return m_slots.projected(weights);
    }
    ConvolvedProjections& slots() { return m_slots; }

    // A query or key slot: unit vectors per key head, once per projection (shared-qk's two
    // slots read the same tensor).
    Tensor& unitHeads(Projection p, int keyDim) {
        auto& unit = m_unit[static_cast<int>(p)];
        if (unit) return *unit;
        Tensor& raw = m_slots.convolved(p);
        unit = m_be.create(raw.rows(), raw.cols());
        m_be.normalizeHeads(raw, keyDim, m_c.deltaNet.unitNormEps, *unit);
        return *unit;
    }

  private:
    Backend& m_be;
    const Architecture& m_c;
    ConvolvedProjections m_slots;
    std::unique_ptr<Tensor> m_unit[3];
};

}  // namespace

std::unique_ptr<Tensor> runDeltaNet(Backend& be, const Architecture& model, const DeviceLayer& w,
                                    const MixerRequest& request, const Tensor& x,
                                    LayerTrace& traced) {
    const int l = request.layer, n = x.rows();
    const Architecture c = model.atLayer(l);
    const WConfiguration& config = *request.config;
    const DeltaRuleLayout layout{c.kvHeads, c.heads, c.headDim, c.valueWidth(),
                                 1.0f / std::sqrt(static_cast<float>(c.headDim))};
    DeltaNetLayer layer(be, model, w, x);
    Tensor& q = layer.unitHeads(config.querySource, c.headDim);
    Tensor& k = layer.unitHeads(config.keySource, c.headDim);
    Tensor& v = layer.slots().values(config.valueSource, c.heads, c.kvHeads, c.valueWidth());
    auto b = layer.projected(w.recurrent.b);
    auto a = layer.projected(w.recurrent.a);

    const AttentionCapture capture = implicitCapture(request, c.heads, n, traced);
    auto core = be.create(n, c.heads * c.valueWidth());
    be.gatedDeltaRule(q, k, v, *b, *a, *w.recurrent.aLog, *w.recurrent.dtBias, layout, *core,
                      &capture);
    traceSlots(be, request, c, q, k, v, traced);

    auto normed = be.create(n, core->cols());
    be.rmsNormHeads(*core, c.valueWidth(), *w.recurrent.norm.gamma, c.normEps, *normed);
    be.glu(*layer.projected(w.recurrent.z), *normed, Activation::SwiGlu);
    return applyLinear(be, w.output, *normed);
}

}  // namespace qkv
