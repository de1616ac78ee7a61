#include "core/model/token_mixers.h"

namespace qkv {

std::unique_ptr<Tensor> runMamba2(Backend& be, const Architecture& c, const DeviceLayer& w,
                                  const MixerRequest& request, const Tensor& x,
                                  LayerTrace& traced) {
    const int l = request.layer, n = x.rows();
    const Mamba2& ssm = c.mamba2;
    ConvolvedProjections slots(be, w, x);
    Tensor& C = slots.convolved(request.config.querySource);
    Tensor& B = slots.convolved(request.config.keySource);
    Tensor& values = slots.values(request.config.valueSource, c.heads, c.kvHeads, c.valueWidth());
    auto dt = slots.projected(w.recurrent.a);

    const AttentionCapture capture = implicitCapture(request, c.heads, n, traced);
    traced.skip.clear();
    if (request.capture.includesLayer(l)) {
        traced.skip.resize(c.heads);
        be.enqueueDownload(*w.recurrent.skip, traced.skip.data());
    }
    const int width = c.heads * c.valueWidth();
    auto y = be.create(n, width);
    const StateSpaceLayout layout{c.heads,   c.valueWidth(), c.kvHeads,
                                  c.headDim, ssm.dtMin,      ssm.dtMax};
    be.stateSpace(values, B, C, *dt, *w.recurrent.aLog, *w.recurrent.dtBias, *w.recurrent.skip,
                  layout, *y, &capture);
    traceSlots(be, request, c, C, B, values, traced);

    be.glu(*slots.projected(w.recurrent.z), *y, Activation::SwiGlu);  // y · silu(z)
    if (!ssm.gatedNorm) return applyLinear(be, w.output, *y);
    auto out = be.create(n, width);
    be.rmsNormHeads(*y, width / ssm.normGroups, *w.recurrent.norm.gamma, c.normEps, *out);
    return applyLinear(be, w.output, *out);
}

}  // namespace qkv
