#pragma once
// Architecture-neutral view of a checkpoint's weights: every linear layer as "in x out" (y = xW+b)
// over the memory-mapped tensors, so every family shares one forward pass. Nothing here owns
// memory; the views point into the TensorStore (or its float32 conversions) or into the few
// tensors a family's binder derives (Model keeps those).
#include <optional>
#include <vector>

#include "core/backend/activation.h"
#include "core/backend/matrix_view.h"

namespace qkv {

struct LinearWeights {
    MatrixView weight;  // in x out
    VectorView bias;    // empty when the layer has none
    // The stored output column of each output the model uses, where the file keeps them in
    // another order (TensorInfo::rowOrder) or interleaves them with another projection's (gated
    // attention's query and gate); empty: as stored. Products gather them.
    std::vector<int> outputOrder = {};
    // The factor its outputs are multiplied by (Falcon-H1's µP multipliers); the weight itself
    // stays the file's.
    float scale = 1.0f;
    // The stored input of each input the model uses, where the file keeps them in another order
    // (TensorInfo::columnOrder); empty: as stored. Products gather x into the stored order.
    std::vector<int> inputOrder = {};
};

struct NormWeights {
    VectorView gamma;
    VectorView beta;  // empty for RMSNorm
};

// A layer's parts are declared once, over the storage P gives them (P::Linear, P::Norm, a
// P::Vector the forward reads on the backend and a P::HostVector it reads on the host): the
// checkpoint's views here (HostParts), the backend's tensors in device_model.h (DeviceParts).
// forEachPart walks two layers of any storage side by side, so a binding never lists fields.

// One expert of a mixture: a gated MLP, out(act(gate x) · in x); with ClampedSwiGlu, `in`
// holds gate and up interleaved and `gate` is empty (gpt-oss), or, as a GGUF file keeps them,
// `in` the up projection and `gate` the gate.
template <class P>
struct ExpertOf {
    typename P::Linear in, gate, out;
};

// Multi-head latent attention's projections (Architecture::latent), as the checkpoint stores
// them: the query's optional bottleneck (queryDown, its norm, then queryUp; or queryUp alone),
// the shared latent and rotary key (keyValueDown's first keyValueRank columns and the rest),
// the latent's norm, and keyValueUp giving each head's [key | value] from the normed latent.
template <class P>
struct LatentAttentionOf {
    typename P::Linear queryDown;
    typename P::Norm queryNorm;
    typename P::Linear queryUp;  // heads x [nope | rope] columns
    typename P::Linear latent, rotaryKey;
    typename P::Norm latentNorm;
    typename P::Linear keyValueUp;  // heads x [key nope | value] columns
    // DeepSeek sparse attention's indexer (Architecture::keyIndexer): its queries from the normed
    // query latent, one key per token (indexKey, then its LayerNorm) and each of its heads'
    // weight per query; empty in a layer that reuses the previous layer's keys.
    typename P::Linear indexQuery, indexKey, indexHeadWeights;
    typename P::Norm indexKeyNorm;
};

// The parts of a token mixer without a softmax beside its q, k and v projections (LayerOf's
// query, key and value: Gated DeltaNet's q, k, v; Mamba-2's C, B, x) and its output
// projection: the short convolution's taps of each (conv1d's channels, K taps each) and their
// biases (Mamba-2), z (the gate of the normed core), b (Gated DeltaNet, per value head: β =
// σ(b)), a (per head, the decay's input: Gated DeltaNet's a, Mamba-2's dt), A_log and dt_bias
// per head, the skip D per head (Mamba-2) and the gated RMSNorm.
template <class P>
struct RecurrentMixerOf {
    typename P::Vector queryTaps, keyTaps, valueTaps;
    typename P::Vector queryConvBias, keyConvBias, valueConvBias;
    typename P::Linear z, b, a;
    typename P::Vector aLog, dtBias, skip;
    typename P::Norm norm;
    // A short convolution's taps over B · x ([channels, kernel]) and their bias (LFM2).
    typename P::Vector productTaps, productConvBias;
};

template <class P>
struct LayerOf {
    using Linear = typename P::Linear;
    using Norm = typename P::Norm;
    Norm attentionNorm;        // pre-norm: input of attention; post-norm: after its residual
    Norm attentionOutputNorm;  // Gemma-2: on the attention output, before the residual
    Linear query;              // d_model x heads*d_k
    Linear key;                // d_model x kvHeads*d_k
    Linear value;              // d_model x kvHeads*d_k
    Linear output;             // heads*d_k x d_model
    Norm queryNorm, keyNorm;   // QK-norm (Qwen3, Gemma-3, OLMo 2); empty otherwise
    Norm valueNorm;            // Gemma 4: an RMSNorm of each value head (gamma all ones)
    typename P::Vector attentionSinks;  // gpt-oss: a logit per query head (AttentionOptions::sinks)
    LatentAttentionOf<P> latent;        // DeepSeek: instead of query, key and value
    RecurrentMixerOf<P> recurrent;      // a Gated DeltaNet or Mamba-2 layer's (LayerKind::mixer)
    Linear attentionGate;  // gated attention: each head's gate columns (Architecture::outputGate)
    Norm mlpNorm;
    Norm mlpOutputNorm;  // Gemma-2: on the MLP output, before the residual
    Linear mlpIn;        // GPT-2 c_fc, BERT intermediate, Llama up_proj
    Linear mlpGate;      // gated MLPs' gate_proj (empty otherwise)
    Linear mlpOut;
    // A mixture-of-experts layer (Architecture::moe) instead of the MLP above (which then holds
    // the shared experts where the family has them): the router (d_model x experts), its
    // choice bias (DeepSeek-V3's e_score_correction_bias, only for choosing) and every expert.
    Linear router;
    typename P::HostVector routerChoiceBias;
    std::vector<ExpertOf<P>> experts;
    Linear sharedExpertGate;  // d_model x 1 (MixtureOfExperts::sharedGated)
    // Decoder layers of encoder-decoder models: cross-attention between self-attention and the
    // MLP. Its query reads the decoder's stream, its key and value the encoder's output.
    Norm crossNorm;
    Linear crossQuery, crossKey, crossValue, crossOutput;
    // Gemma 4's layer_scalar: the layer's output (the residual stream) is multiplied by it.
    float outputScale = 1.0f;
    // Apertus: the MLP's xIELU with this layer's parameters (Activation::XIelu).
    std::optional<XIeluParameters> xielu;
    // Falcon-H1: the Mamba-2 mixer beside the attention (Architecture::besideMamba), its C, B and
    // x as its query, key and value; empty elsewhere.
    std::vector<LayerOf<P>> beside;
    // Gemma 3n's AltUp (Architecture::streams): the router's norm and projection (d_model x
    // streams; its input divided by d_model), the coefficients that predict each stream from
    // all (streams² x streams, as stored: [out][in]) and that correct them (streams x streams),
    // and the active stream's gain (d_model) before the per-layer input's gate.
    Norm streamRouterNorm;
    Linear streamRouter;
    typename P::HostVector predictionCoefficients, correctionCoefficients, streamGain;
    // LAuReL (Architecture::laurelRank): x + laurelNorm(laurelUp(laurelDown x)) beside the
    // attention.
    Linear laurelDown, laurelUp;
    Norm laurelNorm;
    // The per-layer input (Architecture::perLayerInputs): its gate (d_model x width), the
    // projection of act(gate) · input (width x d_model) and that projection's norm.
    Linear perLayerGate, perLayerProjection;
    Norm perLayerNorm;
};

// Calls part(from.x, to.x) for every linear, norm and vector of two layers, in declaration
// order; `to` gets as many experts as `from` has, and its output scale.
template <class From, class To, class Visit>
void forEachPart(const LayerOf<From>& from, LayerOf<To>& to, Visit&& part) {
    part(from.attentionNorm, to.attentionNorm);
    part(from.attentionOutputNorm, to.attentionOutputNorm);
    part(from.query, to.query);
    part(from.key, to.key);
    part(from.value, to.value);
    part(from.output, to.output);
    part(from.queryNorm, to.queryNorm);
    part(from.keyNorm, to.keyNorm);
    part(from.valueNorm, to.valueNorm);
    part(from.attentionSinks, to.attentionSinks);
    const LatentAttentionOf<From>& fl = from.latent;
    LatentAttentionOf<To>& tl = to.latent;
    part(fl.queryDown, tl.queryDown);
    part(fl.queryNorm, tl.queryNorm);
    part(fl.queryUp, tl.queryUp);
    part(fl.latent, tl.latent);
    part(fl.rotaryKey, tl.rotaryKey);
    part(fl.latentNorm, tl.latentNorm);
    part(fl.keyValueUp, tl.keyValueUp);
    part(fl.indexQuery, tl.indexQuery);
    part(fl.indexKey, tl.indexKey);
    part(fl.indexHeadWeights, tl.indexHeadWeights);
    part(fl.indexKeyNorm, tl.indexKeyNorm);
    const RecurrentMixerOf<From>& fd = from.recurrent;
    RecurrentMixerOf<To>& td = to.recurrent;
    part(fd.queryTaps, td.queryTaps);
    part(fd.keyTaps, td.keyTaps);
    part(fd.valueTaps, td.valueTaps);
    part(fd.queryConvBias, td.queryConvBias);
    part(fd.keyConvBias, td.keyConvBias);
    part(fd.valueConvBias, td.valueConvBias);
    part(fd.z, td.z);
    part(fd.productTaps, td.productTaps);
    part(fd.productConvBias, td.productConvBias);
    part(fd.b, td.b);
    part(fd.a, td.a);
    part(fd.aLog, td.aLog);
    part(fd.dtBias, td.dtBias);
    part(fd.skip, td.skip);
    part(fd.norm, td.norm);
    part(from.attentionGate, to.attentionGate);
    part(from.mlpNorm, to.mlpNorm);
    part(from.mlpOutputNorm, to.mlpOutputNorm);
    part(from.mlpIn, to.mlpIn);
    part(from.mlpGate, to.mlpGate);
    part(from.mlpOut, to.mlpOut);
    part(from.router, to.router);
    part(from.routerChoiceBias, to.routerChoiceBias);
    to.experts.resize(from.experts.size());
    for (size_t e = 0; e < from.experts.size(); ++e) {
        part(from.experts[e].in, to.experts[e].in);
        part(from.experts[e].gate, to.experts[e].gate);
        part(from.experts[e].out, to.experts[e].out);
    }
    part(from.sharedExpertGate, to.sharedExpertGate);
    part(from.crossNorm, to.crossNorm);
    part(from.crossQuery, to.crossQuery);
    part(from.crossKey, to.crossKey);
    part(from.crossValue, to.crossValue);
    part(from.crossOutput, to.crossOutput);
    to.outputScale = from.outputScale;
    to.xielu = from.xielu;
    part(from.streamRouterNorm, to.streamRouterNorm);
    part(from.streamRouter, to.streamRouter);
    part(from.predictionCoefficients, to.predictionCoefficients);
    part(from.correctionCoefficients, to.correctionCoefficients);
    part(from.streamGain, to.streamGain);
    part(from.laurelDown, to.laurelDown);
    part(from.laurelUp, to.laurelUp);
    part(from.laurelNorm, to.laurelNorm);
    part(from.perLayerGate, to.perLayerGate);
    part(from.perLayerProjection, to.perLayerProjection);
    part(from.perLayerNorm, to.perLayerNorm);
    to.beside.resize(from.beside.size());
    for (size_t b = 0; b < from.beside.size(); ++b) forEachPart(from.beside[b], to.beside[b], part);
}

// The checkpoint's storage: views into the mapped tensors.
struct HostParts {
    using Linear = LinearWeights;
    using Norm = NormWeights;
    using Vector = VectorView;
    using HostVector = VectorView;
};
using ExpertWeights = ExpertOf<HostParts>;
using LatentAttentionWeights = LatentAttentionOf<HostParts>;
using RecurrentMixerWeights = RecurrentMixerOf<HostParts>;
using LayerWeights = LayerOf<HostParts>;

// The model's own parts of Gemma 3n's AltUp and per-layer inputs: the projections that make the
// streams after the first from the token embedding (streams − 1 of d_model x d_model) and take
// them back at the end, and the projection of the token embedding to every layer's input
// (d_model x layers·width, its output times d_model^-½) with the norm of each width-wide part.
template <class P>
struct StreamPartsOf {
    std::vector<typename P::Linear> streamUp, streamDown;
    typename P::Linear perLayerProjection;
    typename P::Norm perLayerNorm;
};

struct ModelWeights {
    MatrixView tokenEmbedding;  // vocab x token width (d_model unless projected), row-major
    // Architecture::embeddingWidth set: token width x d_model after the lookup, d_model x token
    // width before the output head (OPT-350m's project_in, project_out). Empty otherwise.
    LinearWeights embeddingProjection, outputProjection;
    MatrixView positionEmbedding;   // context x d_model (empty with rotary positions)
    MatrixView tokenTypeEmbedding;  // BERT-style segments (empty when the family has none)
    NormWeights embeddingNorm;      // BERT family, BART
    std::vector<LayerWeights> layers;
    NormWeights finalNorm;        // pre-norm models' last norm (empty for post-norm ones)
    LinearWeights headTransform;  // masked-LM heads: dense + activation + LayerNorm first
    NormWeights headTransformNorm;
    LinearWeights lmHead;  // token width x vocab (tied: the token embedding transposed)

    // Encoder-decoder models: `layers`, `positionEmbedding`, `embeddingNorm` and `finalNorm` are
    // the encoder's; the decoder shares the token embedding and feeds the output head.
    std::vector<LayerWeights> decoderLayers;
    MatrixView decoderPositionEmbedding;  // Marian: the encoder's table; BART: its own
    NormWeights decoderEmbeddingNorm;     // BART
    NormWeights decoderFinalNorm;
    // Gemma 3n: the per-layer input table (per-layer vocab x layers·width, scaled on lookup by
    // √width) and the streams' parts.
    MatrixView perLayerEmbedding;
    StreamPartsOf<HostParts> streamParts;
    MatrixView relativeBias;         // T5: buckets x heads, the encoder's self-attention
    MatrixView decoderRelativeBias;  // T5: buckets x heads, the decoder's self-attention
};

}  // namespace qkv
