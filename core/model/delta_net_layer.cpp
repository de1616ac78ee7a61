#include <cmath>

#include "core/model/token_mixers.h"

namespace qkv {

std::unique_ptr<Tensor> runDeltaNet(Backend& be, const Architecture& c, const DeviceLayer& w,
                                    const MixerRequest& request, const Tensor& x,
                                    LayerTrace& traced) {
    const int n = x.rows();
    const DeltaRuleLayout layout{c.kvHeads, c.heads, c.headDim, c.valueWidth(),
                                 1.0f / std::sqrt(static_cast<float>(c.headDim))};
    ConvolvedProjections slots(be, w, x);
    // A query or key slot: unit vectors per key head, once per projection (shared-qk's two
    // slots read the same tensor).
    std::unique_ptr<Tensor> units[3];
    auto unitHeads = [&](Projection p) -> Tensor& {
        auto& unit = units[static_cast<int>(p)];
        if (unit) return *unit;
        Tensor& raw = slots.convolved(p);
        unit = be.create(raw.rows(), raw.cols());
        be.normalizeHeads(raw, c.headDim, c.deltaNet.unitNormEps, *unit);
        return *unit;
    };
    Tensor& q = unitHeads(request.config.querySource);
    Tensor& k = unitHeads(request.config.keySource);
    Tensor& v = slots.values(request.config.valueSource, c.heads, c.kvHeads, c.valueWidth());
    auto b = slots.projected(w.recurrent.b);
    auto a = slots.projected(w.recurrent.a);

    const AttentionCapture capture = implicitCapture(request, c.heads, n, traced);
    auto core = be.create(n, c.heads * c.valueWidth());
    be.gatedDeltaRule(q, k, v, *b, *a, *w.recurrent.aLog, *w.recurrent.dtBias, layout, *core,
                      &capture);
    traceSlots(be, request, c, q, k, v, traced);

    auto normed = be.create(n, core->cols());
    be.rmsNormHeads(*core, c.valueWidth(), *w.recurrent.norm.gamma, c.normEps, *normed);
    be.glu(*slots.projected(w.recurrent.z), *normed, Activation::SwiGlu);
    return applyLinear(be, w.output, *normed);
}

}  // namespace qkv
