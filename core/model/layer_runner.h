#pragma once
// Internal to the forward pass (core/model/forward.cpp): one stack's layers on a backend. The
// description (Architecture) decides norms, residuals, positions and the attention's scale, cap
// and window; the request's W configuration decides which projection fills each slot, in every
// attention block — self-attention, and a decoder layer's cross-attention.
#include <map>
#include <memory>
#include <vector>

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
    const DeviceLinear* gate = nullptr;  // gated attention's gate (Architecture::outputGate)

    static AttentionBlock self(const DeviceLayer& l) {
        return {l.query,
                l.key,
                l.value,
                l.output,
                &l.queryNorm,
                &l.keyNorm,
                &l.valueNorm,
                l.attentionSinks.get(),
                l.latent.keyValueUp.weight ? &l.latent : nullptr,
                l.attentionGate.weight ? &l.attentionGate : nullptr};
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
    AttentionLayout layoutOf(int l) const;
    Backend& backend() const { return m_be; }
    const Architecture& architecture() const { return m_c; }

    // x := the layer's output; h is scratch of x's shape. A decoder layer of an
    // encoder-decoder model also attends to `encoded` (the encoder's output) between its
    // self-attention and its MLP, captured into `crossTraced`.
    void run(int l, const DeviceLayer& layer, Tensor& x, Tensor& h, LayerTrace& traced,
             const Tensor* encoded = nullptr, LayerTrace* crossTraced = nullptr) const;

    // A last layer whose output nothing reads (no logits asked): its self-attention is traced,
    // its output projection, residuals and MLP skipped. Where its MLP is a mixture of experts
    // (in a pre-norm layer), the attention's output and residual are computed too, for the
    // router, whose routing the trace keeps; the experts are skipped. x is then the residual
    // stream after the attention, else unchanged; h is scratch.
    void traceOnly(int l, const DeviceLayer& layer, Tensor& x, Tensor& h, LayerTrace& traced) const;

    void norm(const DeviceNorm& n, const Tensor& x, Tensor& y) const;

    // Gemma 3n's per-layer inputs of every token (n x layers·width), which its layers read.
    void usePerLayerInputs(const Tensor* inputs) { m_perLayerInputs = inputs; }

    std::unique_ptr<Tensor> linear(const DeviceLinear& l, const Tensor& x) const;

  private:
    // y := norm(x) where the layer has the norm, and x itself where it has none.
    const Tensor& normedOrSame(const DeviceNorm& n, const Tensor& x, Tensor& y) const;

    // x := norm(x + out), the post-norm residual.
    void postNormed(const DeviceNorm& n, Tensor& x, std::unique_ptr<Tensor> out) const;

    // x += sublayer output, normed first where the family norms it (Gemma-2).
    void addResidual(Tensor& x, const Tensor& out, const DeviceNorm& outputNorm, Tensor& h) const;

    // The layer's MLP, or its mixture of experts, whose routing of the tokens computed here
    // follows the kept tokens' in the trace.
    std::unique_ptr<Tensor> mlp(int l, const DeviceLayer& layer, const Tensor& x,
                                LayerTrace& traced) const;

    // The layer's routing in the trace: the kept tokens' from the earlier trace, then `routed`
    // (the tokens computed here).
    void traceRouting(int l, const std::vector<TokenRouting>& routed, LayerTrace& traced) const;

    // The layer's token mixer on `in`: its self-attention, or its linear attention.
    std::unique_ptr<Tensor> mixTokens(int l, const DeviceLayer& layer, const Tensor& in,
                                      LayerTrace& traced, bool project = true) const;

    // Gated attention: attended *= σ(gates), the gate projection's logits; a captured layer
    // keeps them.
    void gateOutput(int l, Tensor& gates, Tensor& attended, LayerTrace& traced) const;

    // Q, K, V under the request's configuration -> attention (captured) -> output projection.
    // The query slot reads `queries`, the key and value slots read `keys` (the same tensor but in
    // cross-attention), whichever weights the configuration puts in them.
    // Without `project`, the output projection is skipped and null returned.
    std::unique_ptr<Tensor> attend(int l, const AttentionBlock& block, const Tensor& queries,
                                   const Tensor& keys, const KeyMask& mask, const Tensor* bias,
                                   LayerTrace& traced, bool project = true) const;

    // Gemma 3n's layer over its AltUp streams (residual_streams.cpp); `streams` holds them one
    // after another, n rows each.
    void runStreams(int l, const DeviceLayer& layer, Tensor& streams, LayerTrace& traced) const;
    // Its MLP: the gated MLP with the gate's activation sparsity (LayerKind::gateCutoff).
    std::unique_ptr<Tensor> sparseGatedMlp(int l, const DeviceLayer& layer, const Tensor& x) const;

    std::unique_ptr<Tensor> copyOf(const Tensor& t) const;

    // The kept tokens' rows (of the earlier forward's tensor) followed by `added`'s.
    std::unique_ptr<Tensor> withKeptRows(const Tensor& earlier, const Tensor& added) const;

    // `used` kept for a later forward: `owned` itself where it holds it (a tensor of this layer
    // alone), else a copy (a slot may share its tensor with another slot or a later layer).
    std::unique_ptr<Tensor> keptCopy(std::unique_ptr<Tensor>& owned, const Tensor& used) const;

    // Host buffers in the trace for the heads the request captures, the kept tokens' block
    // already filled from the earlier trace.
    AttentionCapture captureInto(int l, int n, int keys, int kept, LayerTrace& traced) const;

    // traced's n x keys matrix of `head`, its top-left kept x kept block copied from the
    // earlier trace (the backend fills the rest).
    float* keptBlock(int l, std::vector<RowMatrixXf> LayerTrace::*matrices, int head, int n,
                     int keys, int kept, LayerTrace& traced) const;

    Backend& m_be;
    const Architecture& m_c;
    const ForwardRequest& m_request;
    const Tensor* m_positionBias;
    KeptPrefix m_kept;
    // The keys the last sparse-attention indexer kept, per query, and the attention bias that
    // keeps them: a layer that reuses keys (LayerKind::reusesKeys) attends with both. Layers run
    // in order, so they are the previous layer's.
    mutable std::vector<std::vector<int>> m_selectedKeys;
    mutable std::unique_ptr<Tensor> m_selectionBias;
    // The keys and values (as attended: normed, rotated) of the layers later layers share them
    // from (LayerKind::keyValueSource), by layer.
    mutable std::map<int, std::pair<std::unique_ptr<Tensor>, std::unique_ptr<Tensor>>>
        m_lentKeyValues;
    const Tensor* m_perLayerInputs = nullptr;
};

}  // namespace qkv
