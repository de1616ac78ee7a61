#include "core/model/convolved_projections.h"

namespace qkv {

AttentionCapture implicitCapture(const MixerRequest& request, int heads, int n,
                                 LayerTrace& traced) {
    const CaptureSelection& wanted = request.capture;
    traced.implicit = true;
    traced.scores.assign(heads, RowMatrixXf());
    traced.probabilities.assign(heads, RowMatrixXf());
    AttentionCapture capture;
    capture.scores.assign(heads, nullptr);
    capture.probabilities.assign(heads, nullptr);
    for (int h = 0; h < heads; ++h)
        if (wanted.includes(request.layer, h) && wanted.probabilities) {
            traced.probabilities[h].resize(n, n);
            capture.probabilities[h] = traced.probabilities[h].data();
        }
    return capture;
}

void traceSlots(Backend& be, const MixerRequest& request, const Architecture& c, const Tensor& q,
                const Tensor& k, const Tensor& v, LayerTrace& traced) {
    const int group = c.heads / c.kvHeads;
    traced.layout = {c.heads, c.headDim, group, group, 1, c.valueWidth()};
    if (request.capture.keepsVectors(request.layer)) keepSlotVectors(be, q, k, v, traced);
}

}  // namespace qkv
