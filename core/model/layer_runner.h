#pragma once
// Internal to the forward pass (core/model/forward.cpp): one stack's layers on a backend. The
// description (Architecture) decides norms, residuals, positions and the attention's scale, cap
// and window; the request's W configuration decides which projection fills each slot, in every
// attention block — self-attention, and a decoder layer's cross-attention.
#include <memory>
#include <numeric>
#include <optional>

#include "core/model/applicable_configurations.h"
#include "core/model/forward.h"
#include "core/model/latent_attention.h"
#include "core/model/mixture_of_experts.h"

namespace qkv {

// One attention block's projections: a layer's self-attention, or a decoder layer's
// cross-attention.
struct AttentionBlock {
    const DeviceLinear& query;
    const DeviceLinear& key;
    const DeviceLinear& value;
    const DeviceLinear& output;
    const DeviceNorm* queryNorm = nullptr;  // QK-norm; cross-attention has none
    const DeviceNorm* keyNorm = nullptr;
    const DeviceNorm* valueNorm = nullptr;  // Gemma 4's v_norm, on the value slot
    const Tensor* sinks = nullptr;          // gpt-oss's attention sinks, whatever the configuration
    const DeviceLatentAttention* latent = nullptr;  // DeepSeek's projections instead of W_Q...

    static AttentionBlock self(const DeviceLayer& l) {
        return {l.query,
                l.key,
                l.value,
                l.output,
                &l.queryNorm,
                &l.keyNorm,
                &l.valueNorm,
                l.attentionSinks.get(),
                l.latent.keyValueUp.weight ? &l.latent : nullptr};
    }
    static AttentionBlock cross(const DeviceLayer& l) {
        return {l.crossQuery, l.crossKey, l.crossValue, l.crossOutput};
    }
    const DeviceLinear& projection(Projection p) const {
        return p == Projection::Query ? query : p == Projection::Key ? key : value;
    }
    // The QK-norm that follows a projection wherever a configuration puts it: a key slot filled
    // from W_Q is normed with q_norm. Null where there is none. A value slot's norm (Gemma 4's,
    // without weights of its own) belongs to the slot: valueSlotNorm().
    const DeviceNorm* normAfter(Projection p) const {
        const DeviceNorm* n = p == Projection::Query ? queryNorm
                              : p == Projection::Key ? keyNorm
                                                     : nullptr;
        return n && n->gamma ? n : nullptr;
    }
    const DeviceNorm* valueSlotNorm() const {
        return valueNorm && valueNorm->gamma ? valueNorm : nullptr;
    }
};

// Cross-attention sees every source token.
constexpr KeyMask kUnmasked{false, 0};

// What a forward takes from an earlier one over the same first tokens (prefix reuse): the rows
// of the first `tokens` tokens of its q, k and v (left on the backend) and of its trace's
// captured blocks and routing. `keep`, when set, receives this forward's own q, k and v.
struct KeptPrefix {
    const AttentionTrace* trace = nullptr;
    const KeptVectors* vectors = nullptr;
    int tokens = 0;  // 0: nothing kept, every token is computed
    KeptVectors* keep = nullptr;
};

// One forward's layers: the description (Architecture) decides norms, residuals, positions and
// the attention's scale, cap and window; the request's W configuration decides which projection
// fills each slot.
class LayerRunner {
  public:
    // `positionBias`: added to every self-attention layer's scores (T5), or null. With a kept
    // prefix, the tensors run() gets hold the later tokens' rows only.
    LayerRunner(Backend& backend, const Architecture& config, const ForwardRequest& request,
                const Tensor* positionBias = nullptr, KeptPrefix kept = {})
        : m_be(backend),
          m_c(config),
          m_request(request),
          m_positionBias(positionBias),
          m_kept(kept) {
        requireConfigurationApplies(m_c, request.config);
    }

    // How layer l's q, k and v hold its heads: slots filled from W_Q have one head per query
    // head; from W_K or W_V, one per KV head of the layer.
    AttentionLayout layoutOf(int l) const {
        const int group = m_c.heads / m_c.kvHeadsOf(l);
        auto groupOf = [&](Projection p) { return p == Projection::Query ? 1 : group; };
        const WConfiguration& a = m_request.config;
        return {m_c.heads,
                m_c.headDimOf(l),
                groupOf(a.querySource),
                groupOf(a.keySource),
                groupOf(a.valueSource),
                m_c.valueDim};
    }
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
            m_be.add(x, *mlp(l, layer, h, traced));
            m_be.add(x, *attention);
        } else if (m_c.preNorm) {  // x + out(attn(norm x)), then the same for the MLP
            // A sublayer without an input norm (OLMo 2, ModernBERT's first layer) reads x.
            const Tensor& in = normedOrSame(layer.attentionNorm, x, h);
            addResidual(x, *attend(l, self, in, in, mask, m_positionBias, traced),
                        layer.attentionOutputNorm, h);
            if (encoded) {
                norm(layer.crossNorm, x, h);
                m_be.add(x, *attend(l, cross, h, *encoded, kUnmasked, nullptr, *crossTraced));
            }
            addResidual(x, *mlp(l, layer, normedOrSame(layer.mlpNorm, x, h), traced),
                        layer.mlpOutputNorm, h);
            if (layer.outputScale != 1.0f) scale(x, layer.outputScale, h);
        } else {  // norm(x + attn(x)), then norm(x + mlp(x))
            postNormed(layer.attentionNorm, x, attend(l, self, x, x, mask, m_positionBias, traced));
            if (encoded)
                postNormed(layer.crossNorm, x,
                           attend(l, cross, x, *encoded, kUnmasked, nullptr, *crossTraced));
            postNormed(layer.mlpNorm, x, mlp(l, layer, x, traced));
        }
    }

    // A last layer whose output nothing reads (no logits asked): its self-attention is traced,
    // its output projection, residuals and MLP skipped. Where its MLP is a mixture of experts
    // (in a pre-norm layer), the attention's output and residual are computed too, for the
    // router, whose routing the trace keeps; the experts are skipped. x is then the residual
    // stream after the attention, else unchanged; h is scratch.
    void traceOnly(int l, const DeviceLayer& layer, Tensor& x, Tensor& h,
                   LayerTrace& traced) const {
        const bool routed = !layer.experts.empty();
        if (routed && !m_c.preNorm) {
            run(l, layer, x, h, traced);
            return;
        }
        const Tensor* input = &x;
        if (m_c.preNorm || m_c.parallelResidual) input = &normedOrSame(layer.attentionNorm, x, h);
        auto out = attend(l, AttentionBlock::self(layer), *input, *input, m_c.keyMask(l),
                          m_positionBias, traced, routed);
        if (!routed) return;
        addResidual(x, *out, layer.attentionOutputNorm, h);
        traceRouting(l, routeTokens(m_be, m_c, layer, normedOrSame(layer.mlpNorm, x, h)), traced);
    }

    void norm(const DeviceNorm& n, const Tensor& x, Tensor& y) const {
        if (m_c.norm == NormKind::RmsNorm)
            m_be.rmsNorm(x, *n.gamma, m_c.normEps, y);
        else
            m_be.layerNorm(x, *n.gamma, n.beta.get(), m_c.normEps, y);
    }

    std::unique_ptr<Tensor> linear(const DeviceLinear& l, const Tensor& x) const {
        return applyLinear(m_be, l, x);
    }

  private:
    // y := norm(x) where the layer has the norm, and x itself where it has none.
    const Tensor& normedOrSame(const DeviceNorm& n, const Tensor& x, Tensor& y) const {
        if (!n.gamma) return x;
        norm(n, x, y);
        return y;
    }

    // x := norm(x + out), the post-norm residual.
    void postNormed(const DeviceNorm& n, Tensor& x, std::unique_ptr<Tensor> out) const {
        m_be.add(*out, x);
        norm(n, *out, x);
    }

    // x *= factor (Gemma 4's layer_scalar) as x += (factor - 1) x, the backend's weighted row
    // sum; h is scratch. Differs from the product by at most an ulp of x.
    void scale(Tensor& x, float factor, Tensor& h) const {
        std::vector<int> rows(x.rows());
        std::iota(rows.begin(), rows.end(), 0);
        m_be.copyRows(x, 0, x.rows(), h, 0);
        m_be.addWeightedRows(h, rows, std::vector<float>(rows.size(), factor - 1.0f), x);
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

    // The layer's MLP, or its mixture of experts, whose routing of the tokens computed here
    // follows the kept tokens' in the trace.
    std::unique_ptr<Tensor> mlp(int l, const DeviceLayer& layer, const Tensor& x,
                                LayerTrace& traced) const {
        if (layer.experts.empty())
            return feedForward(m_be, m_c.activation, layer.mlpIn, layer.mlpGate, layer.mlpOut, x);
        std::vector<TokenRouting> routed;
        auto out = mixtureOfExperts(m_be, m_c, layer, x, routed);
        traceRouting(l, routed, traced);
        return out;
    }

    // The layer's routing in the trace: the kept tokens' from the earlier trace, then `routed`
    // (the tokens computed here).
    void traceRouting(int l, const std::vector<TokenRouting>& routed, LayerTrace& traced) const {
        traced.routing.clear();
        if (m_kept.tokens > 0) {
            const std::vector<TokenRouting>& earlier = m_kept.trace->layers()[l].routing;
            if (static_cast<int>(earlier.size()) < m_kept.tokens)
                throw Error("internal error: the kept tokens' routing is missing");
            traced.routing.assign(earlier.begin(), earlier.begin() + m_kept.tokens);
        }
        traced.routing.insert(traced.routing.end(), routed.begin(), routed.end());
    }

    // Q, K, V under the request's configuration -> attention (captured) -> output projection.
    // The query slot reads `queries`, the key and value slots read `keys` (the same tensor but in
    // cross-attention), whichever weights the configuration puts in them.
    // Without `project`, the output projection is skipped and null returned.
    std::unique_ptr<Tensor> attend(int l, const AttentionBlock& block, const Tensor& queries,
                                   const Tensor& keys, const KeyMask& mask, const Tensor* bias,
                                   LayerTrace& traced, bool project = true) const {
        const WConfiguration& config = m_request.config;
        const bool cross = &queries != &keys;
        const int kept = cross ? 0 : m_kept.tokens;  // the rows of queries and keys start there
        const AttentionLayout layout = layoutOf(l);
        const int headDim = layout.headDim;
        // One projection per distinct (weights, input); QK-norm and rotary embedding on the Q
        // and K slots only (a V slot filled from W_Q keeps the raw projection, normed only by
        // the value slot's own norm where the family has one).
        std::unique_ptr<Tensor> projected[3][2], normed[3][2], rotated[3][2];
        std::optional<LatentProjection> latent;
        if (block.latent) latent.emplace(m_be, m_c, *block.latent);
        auto source = [&](Projection p, const Tensor& input) -> Tensor& {
            auto& slot = projected[static_cast<int>(p)][&input == &keys];
            if (!slot)
                slot = latent ? latent->project(p, input) : linear(block.projection(p), input);
            return *slot;
        };
        auto qkNormed = [&](Projection p, const Tensor& input) -> Tensor& {
            Tensor& raw = source(p, input);
            const DeviceNorm* n = block.normAfter(p);
            if (!n) return raw;
            auto& slot = normed[static_cast<int>(p)][&input == &keys];
            if (!slot) {
                slot = m_be.create(raw.rows(), raw.cols());
                if (m_c.qkNorm == QkNorm::PerHead)
                    m_be.rmsNormHeads(raw, headDim, *n->gamma, m_c.normEps, *slot);
                else
                    m_be.rmsNorm(raw, *n->gamma, m_c.normEps, *slot);
            }
            return *slot;
        };
        const Rotary* rotary = cross ? nullptr : m_c.rotaryOf(l);
        auto positioned = [&](Projection p, const Tensor& input) -> Tensor& {
            Tensor& plain = qkNormed(p, input);
            if (!rotary) return plain;
            auto& slot = rotated[static_cast<int>(p)][&input == &keys];
            if (!slot) {
                slot = m_be.create(plain.rows(), plain.cols());
                // Frequencies of the whole input's length (dynamic and longrope depend on it).
                m_be.rope(plain, headDim, rotary->frequencies(kept + plain.rows()), kept, *slot);
            }
            return *slot;
        };
        Tensor* q = &positioned(config.querySource, queries);
        Tensor& positionedKeys = positioned(config.keySource, keys);
        Tensor* v = &source(config.valueSource, keys);
        std::unique_ptr<Tensor> normedValues;  // Gemma 4: whatever fills the value slot
        if (const DeviceNorm* n = block.valueSlotNorm()) {
            normedValues = m_be.create(v->rows(), v->cols());
            m_be.rmsNormHeads(*v, layout.valueWidth(), *n->gamma, m_c.normEps, *normedValues);
            v = normedValues.get();
        }
        // Reformer's unit keys, after rotary positions, in a tensor of their own: under shared-qk
        // the Q slot holds the same projection un-normalised. Applies to cross-attention too.
        std::unique_ptr<Tensor> unitKeys;
        if (config.normalizeKeys) {
            unitKeys = m_be.create(positionedKeys.rows(), positionedKeys.cols());
            m_be.normalizeHeads(positionedKeys, headDim, *unitKeys);
        }
        Tensor* k = unitKeys ? unitKeys.get() : &positionedKeys;  // traced as used
        std::unique_ptr<Tensor> whole[3];  // every token's q, k, v: kept rows, then the new ones
        if (kept > 0) {
            if (static_cast<int>(m_kept.vectors->size()) <= l)
                throw Error("internal error: the kept tokens' q, k and v are missing");
            const LayerVectors& earlier = (*m_kept.vectors)[l];
            q = (whole[0] = withKeptRows(*earlier.query, *q)).get();
            k = (whole[1] = withKeptRows(*earlier.key, *k)).get();
            v = (whole[2] = withKeptRows(*earlier.value, *v)).get();
        }

        const int n = q->rows();
        const AttentionCapture capture = captureInto(l, n, k->rows(), kept, traced);
        AttentionOptions options{mask.causal,      config.maskSelf,    config.scaleOutside,
                                 config.transform, m_c.attentionScale, m_c.attentionSoftCap,
                                 mask.window};
        if (cross) {  // a target token is not a source one, and S is not square
            options.maskSelf = false;
            options.transform = ScoreTransform::None;
        }
        options.reach = mask.reach;
        options.positionBias = bias;
        options.sinks = block.sinks;
        options.firstQuery = kept;
        auto attended = m_be.create(n - kept, m_c.heads * layout.valueWidth());
        m_be.attention(*q, *k, *v, layout, options, *attended, &capture);
        traced.layout = layout;
        if (m_request.capture.keepsVectors(l))
            for (auto [tensor, target] : {std::pair{q, &traced.query}, std::pair{k, &traced.key},
                                          std::pair{v, &traced.value}}) {
                target->resize(tensor->rows(), tensor->cols());
                m_be.enqueueDownload(*tensor, target->data());
            }
        if (m_kept.keep && !cross) {
            if (static_cast<int>(m_kept.keep->size()) <= l) m_kept.keep->resize(l + 1);
            (*m_kept.keep)[l] = {keptCopy(whole[0], *q), keptCopy(whole[1], *k),
                                 keptCopy(whole[2], *v)};
        }
        return project ? linear(block.output, *attended) : nullptr;
    }

    // The kept tokens' rows (of the earlier forward's tensor) followed by `added`'s.
    std::unique_ptr<Tensor> withKeptRows(const Tensor& earlier, const Tensor& added) const {
        const int kept = m_kept.tokens;
        if (earlier.cols() != added.cols() || earlier.rows() < kept)
            throw Error("internal error: the kept tokens' q, k or v has another shape");
        auto whole = m_be.create(kept + added.rows(), added.cols());
        m_be.copyRows(earlier, 0, kept, *whole, 0);
        m_be.copyRows(added, 0, added.rows(), *whole, kept);
        return whole;
    }

    // `used` kept for a later forward: `owned` itself where it holds it (a tensor of this layer
    // alone), else a copy (a slot may share its tensor with another slot or a later layer).
    std::unique_ptr<Tensor> keptCopy(std::unique_ptr<Tensor>& owned, const Tensor& used) const {
        if (owned.get() == &used) return std::move(owned);
        auto copy = m_be.create(used.rows(), used.cols());
        m_be.copyRows(used, 0, used.rows(), *copy, 0);
        return copy;
    }

    // Host buffers in the trace for the heads the request captures, the kept tokens' block
    // already filled from the earlier trace.
    AttentionCapture captureInto(int l, int n, int keys, int kept, LayerTrace& traced) const {
        traced.scores.resize(m_c.heads);
        traced.probabilities.resize(m_c.heads);
        AttentionCapture capture;
        capture.scores.assign(m_c.heads, nullptr);
        capture.probabilities.assign(m_c.heads, nullptr);
        const CaptureSelection& wanted = m_request.capture;
        for (int head = 0; head < m_c.heads; ++head) {
            if (!wanted.includes(l, head)) continue;
            if (wanted.scores)
                capture.scores[head] =
                    keptBlock(l, &LayerTrace::scores, head, n, keys, kept, traced);
            if (wanted.probabilities)
                capture.probabilities[head] =
                    keptBlock(l, &LayerTrace::probabilities, head, n, keys, kept, traced);
        }
        return capture;
    }

    // traced's n x keys matrix of `head`, its top-left kept x kept block copied from the
    // earlier trace (the backend fills the rest).
    float* keptBlock(int l, std::vector<RowMatrixXf> LayerTrace::*matrices, int head, int n,
                     int keys, int kept, LayerTrace& traced) const {
        RowMatrixXf& matrix = (traced.*matrices)[head];
        matrix.resize(n, keys);
        if (kept > 0)
            matrix.topLeftCorner(kept, kept) =
                (m_kept.trace->layers()[l].*matrices)[head].topLeftCorner(kept, kept);
        return matrix.data();
    }

    Backend& m_be;
    const Architecture& m_c;
    const ForwardRequest& m_request;
    const Tensor* m_positionBias;
    KeptPrefix m_kept;
};

}  // namespace qkv
