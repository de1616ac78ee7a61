#include "core/model/token_mixers.h"

namespace qkv {

std::unique_ptr<Tensor> runShortConv(Backend& be, const Architecture& c, const DeviceLayer& w,
                                     const MixerRequest& request, const Tensor& x,
                                     LayerTrace& traced) {
    ConvolvedProjections slots(be, w, x);
    const WConfiguration& config = request.config;
    auto gated = slots.projected(slots.weightsOf(config.valueSource));
    be.glu(*slots.projected(slots.weightsOf(config.keySource)), *gated, Activation::ProductGlu);
    auto mixed = be.create(gated->rows(), gated->cols());
    be.causalConv(*gated, *w.recurrent.productTaps, w.recurrent.productConvBias.get(), *mixed);
    be.glu(*slots.projected(slots.weightsOf(config.querySource)), *mixed, Activation::ProductGlu);

    traced = LayerTrace{};
    if (request.capture.includesLayer(request.layer)) {
        traced.taps.resize(mixed->cols(), c.shortConv.convKernel);
        be.enqueueDownload(*w.recurrent.productTaps, traced.taps.data());
    }
    return applyLinear(be, w.output, *mixed);
}

}  // namespace qkv
