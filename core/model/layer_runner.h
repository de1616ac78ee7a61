#pragma once
// Internal to the forward pass (core/model/forward.cpp): one stack's layers on a backend. The
// description (Architecture) decides norms, residuals, positions and the attention's scale, cap
// and window; the request's W configuration decides which projection fills each slot, in every
// attention block — self-attention, and a decoder layer's cross-attention.
#include <memory>

#include "core/model/forward.h"

namespace qkv {

// One attention block's projections: a layer's self-attention, or a decoder layer's
// cross-attention.
struct AttentionBlock {
    const DeviceLinear& query;
    const DeviceLinear& key;
    const DeviceLinear& value;
    const DeviceLinear& output;

    static AttentionBlock self(const DeviceLayer& l) { return {l.query, l.key, l.value, l.output}; }
    static AttentionBlock cross(const DeviceLayer& l) {
        return {l.crossQuery, l.crossKey, l.crossValue, l.crossOutput};
    }
    const DeviceLinear& projection(Projection p) const {
        return p == Projection::Query ? query : p == Projection::Key ? key : value;
    }
};

// Cross-attention sees every source token.
constexpr KeyMask kUnmasked{false, 0};

// One forward's layers: the description (Architecture) decides norms, residuals, positions and
// the attention's scale, cap and window; the request's W configuration decides which projection
// fills each slot.
class LayerRunner {
  public:
    // `positionBias`: added to every self-attention layer's scores (T5), or null.
    LayerRunner(Backend& backend, const Architecture& config, const ForwardRequest& request,
                const Tensor* positionBias = nullptr)
        : m_be(backend), m_c(config), m_request(request), m_positionBias(positionBias) {
        // Slots filled from W_Q have one head per query head; from W_K or W_V, one per KV head.
        auto groupOf = [&](Projection p) { return p == Projection::Query ? 1 : m_c.kvGroup(); };
        const WConfiguration& a = request.config;
        m_layout = {m_c.heads, m_c.headDim, groupOf(a.querySource), groupOf(a.keySource),
                    groupOf(a.valueSource)};
    }

    const AttentionLayout& layout() const { return m_layout; }
    Backend& backend() const { return m_be; }
    const Architecture& architecture() const { return m_c; }

    // x := the layer's output; h is scratch of x's shape. A decoder layer of an
    // encoder-decoder model also attends to `encoded` (the encoder's output) between its
    // self-attention and its MLP, captured into `crossTraced`.
    void run(int l, const DeviceLayer& layer, Tensor& x, Tensor& h, LayerTrace& traced,
             const Tensor* encoded = nullptr, LayerTrace* crossTraced = nullptr) const {
        const AttentionBlock self = AttentionBlock::self(layer);
        const AttentionBlock cross = AttentionBlock::cross(layer);
        const KeyMask mask = m_c.keyMask(l);
        if (m_c.parallelResidual) {  // x + attn(ln1 x) + mlp(ln2 x)
            norm(layer.attentionNorm, x, h);
            auto attention = attend(l, self, h, h, mask, m_positionBias, traced);
            norm(layer.mlpNorm, x, h);
            m_be.add(x, *mlp(layer, h));
            m_be.add(x, *attention);
        } else if (m_c.preNorm) {  // x + out(attn(norm x)), then the same for the MLP
            norm(layer.attentionNorm, x, h);
            addResidual(x, *attend(l, self, h, h, mask, m_positionBias, traced),
                        layer.attentionOutputNorm, h);
            if (encoded) {
                norm(layer.crossNorm, x, h);
                m_be.add(x, *attend(l, cross, h, *encoded, kUnmasked, nullptr, *crossTraced));
            }
            norm(layer.mlpNorm, x, h);
            addResidual(x, *mlp(layer, h), layer.mlpOutputNorm, h);
        } else {  // norm(x + attn(x)), then norm(x + mlp(x))
            postNormed(layer.attentionNorm, x, attend(l, self, x, x, mask, m_positionBias, traced));
            if (encoded)
                postNormed(layer.crossNorm, x,
                           attend(l, cross, x, *encoded, kUnmasked, nullptr, *crossTraced));
            postNormed(layer.mlpNorm, x, mlp(layer, x));
        }
    }

    void norm(const DeviceNorm& n, const Tensor& x, Tensor& y) const {
        if (m_c.norm == NormKind::RmsNorm)
            m_be.rmsNorm(x, *n.gamma, m_c.normEps, y);
        else
            m_be.layerNorm(x, *n.gamma, n.beta.get(), m_c.normEps, y);
    }

    std::unique_ptr<Tensor> linear(const DeviceLinear& l, const Tensor& x) const {
        auto y = m_be.create(x.rows(), l.weight->cols());
        m_be.linear(x, *l.weight, l.bias.get(), *y);
        return y;
    }

  private:
    // x := norm(x + out), the post-norm residual.
    void postNormed(const DeviceNorm& n, Tensor& x, std::unique_ptr<Tensor> out) const {
        m_be.add(*out, x);
        norm(n, *out, x);
    }

    // x += sublayer output, normed first where the family norms it (Gemma-2).
    void addResidual(Tensor& x, const Tensor& out, const DeviceNorm& outputNorm, Tensor& h) const {
        if (!outputNorm.gamma) {
            m_be.add(x, out);
            return;
        }
        norm(outputNorm, out, h);
        m_be.add(x, h);
    }

    std::unique_ptr<Tensor> mlp(const DeviceLayer& layer, const Tensor& x) const {
        auto hidden = linear(layer.mlpIn, x);
        if (isGated(m_c.activation))
            m_be.glu(*linear(layer.mlpGate, x), *hidden, m_c.activation);
        else
            m_be.activate(*hidden, m_c.activation);
        return linear(layer.mlpOut, *hidden);
    }

    // Q, K, V under the request's configuration -> attention (captured) -> output projection.
    // The query slot reads `queries`, the key and value slots read `keys` (the same tensor but in
    // cross-attention), whichever weights the configuration puts in them.
    std::unique_ptr<Tensor> attend(int l, const AttentionBlock& block, const Tensor& queries,
                                   const Tensor& keys, const KeyMask& mask, const Tensor* bias,
                                   LayerTrace& traced) const {
        const WConfiguration& config = m_request.config;
        const bool cross = &queries != &keys;
        // One projection per distinct (weights, input); rotary embedding on the Q and K slots
        // only (a V slot filled from W_Q keeps the un-rotated projection).
        std::unique_ptr<Tensor> projected[3][2], rotated[3][2];
        auto source = [&](Projection p, const Tensor& input) -> Tensor& {
            auto& slot = projected[static_cast<int>(p)][&input == &keys];
            if (!slot) slot = linear(block.projection(p), input);
            return *slot;
        };
        auto positioned = [&](Projection p, const Tensor& input) -> Tensor& {
            Tensor& raw = source(p, input);
            if (m_c.positions != Positions::Rotary) return raw;
            auto& slot = rotated[static_cast<int>(p)][&input == &keys];
            if (!slot) {
                slot = m_be.create(raw.rows(), raw.cols());
                m_be.rope(raw, m_c.headDim, m_c.rotaryWidth(), m_c.ropeTheta, *slot);
            }
            return *slot;
        };
        Tensor& q = positioned(config.querySource, queries);
        Tensor& positionedKeys = positioned(config.keySource, keys);
        Tensor& v = source(config.valueSource, keys);
        // Reformer's unit keys, after rotary positions, in a tensor of their own: under shared-qk
        // the Q slot holds the same projection un-normalised. Applies to cross-attention too.
        std::unique_ptr<Tensor> unitKeys;
        if (config.normalizeKeys) {
            unitKeys = m_be.create(positionedKeys.rows(), positionedKeys.cols());
            m_be.normalizeHeads(positionedKeys, m_c.headDim, *unitKeys);
        }
        Tensor& k = unitKeys ? *unitKeys : positionedKeys;  // traced as used

        const int n = q.rows();
        const AttentionCapture capture = captureInto(l, n, k.rows(), traced);
        AttentionOptions options{mask.causal,      config.maskSelf,    config.scaleOutside,
                                 config.transform, m_c.attentionScale, m_c.attentionSoftCap,
                                 mask.window};
        if (cross) {  // a target token is not a source one, and S is not square
            options.maskSelf = false;
            options.transform = ScoreTransform::None;
        }
        options.positionBias = bias;
        auto attended = m_be.create(n, m_c.heads * m_c.headDim);
        m_be.attention(q, k, v, m_layout, options, *attended, &capture);
        for (auto [tensor, target] : {std::pair{&q, &traced.query}, std::pair{&k, &traced.key},
                                      std::pair{&v, &traced.value}}) {
            target->resize(tensor->rows(), tensor->cols());
            m_be.enqueueDownload(*tensor, target->data());
        }
        return linear(block.output, *attended);
    }

    // Host buffers in the trace for the heads the request captures.
    AttentionCapture captureInto(int l, int n, int keys, LayerTrace& traced) const {
        traced.scores.resize(m_c.heads);
        traced.probabilities.resize(m_c.heads);
        AttentionCapture capture;
        capture.scores.assign(m_c.heads, nullptr);
        capture.probabilities.assign(m_c.heads, nullptr);
        const CaptureSelection& wanted = m_request.capture;
        for (int head = 0; head < m_c.heads; ++head) {
            if (!wanted.includes(l, head)) continue;
            if (wanted.scores) {
                traced.scores[head].resize(n, keys);
                capture.scores[head] = traced.scores[head].data();
            }
            if (wanted.probabilities) {
                traced.probabilities[head].resize(n, keys);
                capture.probabilities[head] = traced.probabilities[head].data();
            }
        }
        return capture;
    }

    Backend& m_be;
    const Architecture& m_c;
    const ForwardRequest& m_request;
    const Tensor* m_positionBias;
    AttentionLayout m_layout;
};

}  // namespace qkv
