#pragma once
// The q, k and v slots of a token mixer whose projections each pass a short causal convolution
// and SiLU (Gated DeltaNet's q, k, v; Mamba-2's C, B, x): the W configuration picks which
// projection fills a slot, and each projection is convolved with its own taps (and bias) once.
#include <memory>
#include <vector>

#include "core/model/architecture.h"
#include "core/model/attention_trace.h"
#include "core/model/dense_layers.h"
#include "core/model/w_configuration.h"

namespace qkv {

// What a token mixer without a softmax is asked for: its layer, the W configuration and what to
// capture.
struct MixerRequest {
    int layer;
    const WConfiguration& config;
    const CaptureSelection& capture;
};

class ConvolvedProjections {
  public:
    ConvolvedProjections(Backend& backend, const DeviceLayer& layer, const Tensor& x)
        : m_be(backend), m_w(layer), m_products(backend, x) {}

    // x times a projection of the layer (slots of one fused projection share the product).
    std::unique_ptr<Tensor> projected(const DeviceLinear& weights) {
        return m_products.apply(weights);
    }

    // The layer's projection `p` (Mamba-2: C, B or x; LFM2: C, B or x; Gated DeltaNet: q, k, v).
    const DeviceLinear& weightsOf(Projection p) const {
        return p == Projection::Query ? m_w.query : p == Projection::Key ? m_w.key : m_w.value;
    }

    // A projection through its own convolution taps (and bias) and SiLU, once per projection.
    Tensor& convolved(Projection p) {
        auto& slot = m_convolved[static_cast<int>(p)];
        if (slot) return *slot;
        const RecurrentMixerOf<DeviceParts>& r = m_w.recurrent;
        const bool query = p == Projection::Query, key = p == Projection::Key;
        const Tensor& taps = *(query ? r.queryTaps : key ? r.keyTaps : r.valueTaps);
        const Tensor* bias = (query ? r.queryConvBias
                              : key ? r.keyConvBias
                                    : r.valueConvBias)
                                 .get();
        auto raw = projected(weightsOf(p));
        slot = m_be.create(raw->rows(), raw->cols());
        m_be.causalConv(*raw, taps, bias, *slot);
        m_be.activate(*slot, Activation::Silu);
        return *slot;
    }

    // The value slot, one head per value head: a key-head projection (tied-kv: Gated DeltaNet's
    // k, Mamba-2's B) is repeated for the value heads that read it.
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
    const DeviceLayer& m_w;
    SharedProducts m_products;
    std::unique_ptr<Tensor> m_convolved[3];
    std::unique_ptr<Tensor> m_expanded;
};

// Readies `traced` for a layer of `heads` implicit maps over n tokens (no scores) and returns
// the capture that fills the heads `request` selects.
AttentionCapture implicitCapture(const MixerRequest& request, int heads, int n, LayerTrace& traced);

// After the core: the layout of the slots (value head h reads key head h / (heads / keyHeads))
// and, where the request keeps them, the q, k and v slots' rows.
void traceSlots(Backend& be, const MixerRequest& request, const Architecture& c, const Tensor& q,
                const Tensor& k, const Tensor& v, LayerTrace& traced);

}  // namespace qkv
