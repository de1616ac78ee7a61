#pragma once
// The architecture-neutral description of a checkpoint that the forward pass reads: widths, norm
// kind and placement, residual style, positions, score scale, soft-caps, windows, activations.
// A model family's reader (core/model/families/) fills it from config.json; nothing downstream
// looks at the family's name.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "core/backend/activation.h"
#include "core/backend/key_mask.h"
#include "core/model/rotary.h"

namespace qkv {

enum class NormKind { LayerNorm, RmsNorm };
enum class Positions { Learned, Rotary };
// QK-norm: an RMSNorm of the queries and keys after their projection, before rotary positions —
// over each head (Qwen3, Gemma-3) or over the whole projection (OLMo 2).
enum class QkNorm { None, PerHead, Whole };

// How a layer mixes its tokens. Attention: a softmax of q·k scores. GatedDeltaNet: linear
// attention with a delta-rule state (Backend::gatedDeltaRule), whose heads show their implicit
// attention; its value heads are the layer's heads, its key heads its key/value heads. Mamba2:
// a state-space layer in its dual form (Backend::stateSpace): C, B and x fill the query, key and
// value slots, its B/C groups are its key heads, the state size their width, its heads
// headDim-wide x heads its value heads. None: the block has no token mixer (Nemotron-H's MLP
// blocks) and no heads.
enum class Mixer { Attention, GatedDeltaNet, Mamba2, ShortConv, None };

// What one layer is where a family mixes kinds.
struct LayerKind {
    bool local = false;    // sliding-window attention (Architecture::slidingWindow)
    bool rotary = true;    // false: NoPE, queries and keys are not rotated (SmolLM3)
    bool experts = false;  // the MLP is the mixture of experts (Architecture::moe)
    bool chunked = false;  // attention within chunks (Architecture::attentionChunk: Llama 4)
    // Gemma 4's global layers and linear layers: heads of their own count and width, key/value
    // heads and value width (0: the model's); Gemma 4's have no W_V — the values are the key
    // projection itself (K = V by design).
    int heads = 0;
    int headDim = 0;
    int kvHeads = 0;
    int valueDim = 0;
    bool valueIsKey = false;
    Mixer mixer = Mixer::Attention;
    bool mlp = true;  // false: the block has no MLP (Nemotron-H's mixer blocks)
    // DeepSeek sparse attention: the layer has no indexer of its own and attends to the keys
    // the previous layer's indexer kept (GLM-5's "shared" indexer layers).
    bool reusesKeys = false;
    // Gemma 3n's KV-shared layers: the layer computes only its queries and attends over the keys
    // and values (normed and rotated) that layer keyValueSource computed, with its own mask.
    // -1: it computes its own.
    int keyValueSource = -1;
    // Activation sparsity (Gemma 3n): the MLP's gate keeps what exceeds its row's mean by this
    // many standard deviations, gate := relu(gate − (mean + z·std)), before the activation;
    // 0: none.
    float gateCutoff = 0.0f;
};

// Gemma 3n's AltUp: the residual stream is `count` streams of d_model. The first is the scaled
// token embedding, the others its projections rescaled to its RMS. Each layer predicts every
// stream from all of them (coefficients from its router), runs the attention and MLP on the
// active one, corrects every stream by the active one's change (coefficients again) and adds its
// per-layer input to the others; at the end the others are projected back, rescaled and the
// streams averaged. 0: one stream, the usual residual.
struct ResidualStreams {
    int count = 0;
    int active = 0;
    // altup_correct_scale: the corrected active stream times a learned gain (per d_model
    // column) before it gates the per-layer input.
    bool gainBeforeGate = true;
    bool present() const { return count > 1; }
};

// Gemma 3n's per-layer inputs: a `width`-wide vector per token and layer from a table of its
// own (rows for ids below `vocab`, row 0 above), added to a normed projection of the token
// embedding; each layer gates it with its active stream and adds its projection to the other
// streams. 0: none.
struct PerLayerInputs {
    int width = 0;
    int vocab = 0;
    bool present() const { return width > 0; }
};

// Gated DeltaNet's layers (Qwen3.5, Qwen3-Next): a short causal convolution of `convKernel` taps
// over each of q, k and v, then SiLU; q and k unit vectors (eps 1e-6 in the norm), q scaled by
// 1/√d_k; the core's output per value head RMS-normed and gated by silu(z) before out_proj.
struct GatedDeltaNet {
    int convKernel = 0;  // 0: no layer is one
    float unitNormEps = 1e-6f;
};

// Mamba-2's layers (Nemotron-H, Granite 4): a short causal convolution of `convKernel` taps
// (with a bias) over each of x, B and C, then SiLU; the step size Δ clamped to [dtMin, dtMax];
// out_proj's input RMSNorm(y · silu(z)) of the core's output y and the gate z, the RMSNorm taken
// over each of `normGroups` equal blocks of the heads' channels.
struct Mamba2 {
    int convKernel = 0;  // 0: no layer is one
    float dtMin = 0.0f;
    float dtMax = std::numeric_limits<float>::infinity();
    int normGroups = 1;
    bool gatedNorm = true;  // false: y · silu(z) without the RMSNorm (Falcon-H1's mamba_rms_norm)
};

// LFM2's short-convolution layers: in_proj's rows [B | C | x], y = C · conv(B · x), a depthwise
// causal convolution of `convKernel` taps without an activation, then out_proj. They have no
// heads: each channel mixes its last convKernel tokens (its band, the taps).
struct ShortConv {
    int convKernel = 0;  // 0: no layer is one
};

// Factors of projections' outputs a family binds as LinearWeights::scale (Falcon-H1's µP
// multipliers: each projection then gives what transformers computes); 1 where a model has none.
struct ProjectionScales {
    float attentionInput = 1.0f, attentionOutput = 1.0f;  // q, k, v; o_proj
    float mixerInput = 1.0f, mixerOutput = 1.0f;          // a beside mixer's in_proj; out_proj
    std::array<float, 5> mixerBlocks = {1.0f, 1.0f, 1.0f, 1.0f, 1.0f};  // in_proj's z, x, B, C, dt
    float mlpGate = 1.0f, mlpOutput = 1.0f;                             // gate_proj; down_proj
};

// How a router's logits choose a token's experts and weigh them.
enum class Router {
    SoftmaxTopK,  // softmax over every expert, the top k (Mixtral, Qwen3-MoE, DeepSeek-V2)
    TopKSoftmax,  // the top k logits, softmax over those alone (gpt-oss)
    SigmoidTopK,  // a sigmoid per expert, chosen with a correction bias (DeepSeek-V3)
    TopKSigmoid,  // the top k logits, each weighed by its sigmoid (Llama 4)
};

// A mixture-of-experts MLP (Mixtral, Qwen3-MoE, gpt-oss, DeepSeek): a router sends each token
// to `perToken` of `experts` gated MLPs, `width` wide each, whose outputs it weighs (see
// routing.h).
struct MixtureOfExperts {
    int experts = 0;  // 0: no layer has experts
    int perToken = 0;
    int width = 0;
    bool normalizeTopK = true;  // the chosen weights are divided by their sum
    Router router = Router::SoftmaxTopK;
    // DeepSeek: the experts fall into `groups` equal groups and a token's experts come from its
    // `groupsKept` best groups only; the weights are then multiplied by `scale`.
    int groups = 1;
    int groupsKept = 1;
    float scale = 1.0f;
    // DeepSeek's shared experts: a gated MLP this wide that every token passes through, added to
    // the routed experts' sum (the layer's mlpIn, mlpGate, mlpOut); 0: none.
    int sharedWidth = 0;
    // Qwen3.5-MoE, Qwen3-Next: the shared MLP's output is weighed per token by
    // σ(x · shared_expert_gate) (the layer's sharedExpertGate) before it is added.
    bool sharedGated = false;
    // Llama 4: a token's weight multiplies its input to the expert, not the expert's output.
    bool weighsInput = false;
};

// A query temperature that grows with the position: after rotary, the query of position p is
// multiplied by 1 + beta · ln(1 + floor((p + offset) / interval)), computed in float32 as
// transformers does; keys keep their scale. Ministral 3 (llama_4_scaling_beta, offset 0) on every
// layer; Llama 4 (attn_scale, floor_scale, offset 1) on its NoPE layers only.
struct QueryTemperature {
    float beta = 0.0f;
    int interval = 0;  // original_max_position_embeddings, floor_scale
    int offset = 0;
    bool nopeLayersOnly = false;

    bool present() const { return beta != 0.0f && interval > 0; }
    float at(int position) const {
        const float steps = std::floor((static_cast<float>(position) + static_cast<float>(offset)) /
                                       static_cast<float>(interval));
        return 1.0f + beta * std::log(1.0f + steps);
    }
};

// Multi-head latent attention (DeepSeek-V2/V3): queries through an optional low-rank bottleneck,
// keys and values from one shared latent per token, and a rotary key shared by every head.
// Per head, queries and keys are laid out [rotary part | the rest] (headDim = ropeDim +
// nopeDim wide), values valueDim wide. See core/model/latent_attention.h.
struct LatentAttention {
    int queryRank = 0;     // q_lora_rank; 0: one query projection (q_proj)
    int keyValueRank = 0;  // kv_lora_rank; 0: not latent attention
    int ropeDim = 0;       // qk_rope_head_dim
    int nopeDim = 0;       // qk_nope_head_dim
    // The checkpoint stores the rotary dims as pairs (2i, 2i+1) (DeepSeek-V2's complex rotation,
    // V3's rope_interleave); they are de-interleaved for the rotate-half rotation.
    bool interleavedRope = true;
    float normEps = 1e-6f;  // q_a_layernorm and kv_a_layernorm

    bool present() const { return keyValueRank > 0; }
};

// DeepSeek sparse attention (DeepSeek-V3.2, GLM-5): in every layer a lightning indexer of
// `heads` heads `headDim` wide scores each query's causal keys and the attention sees only the
// `topK` best (core/model/key_indexer.h). Its queries and keys are rotated on their first
// latent.ropeDim dims, by halves or, with interleavedRope, in pairs (2i, 2i+1).
struct KeyIndexer {
    int heads = 0;  // 0: no indexer
    int headDim = 0;
    int topK = 0;
    bool interleavedRope = false;
    float normEps = 1e-6f;  // its keys' LayerNorm

    bool present() const { return heads > 0; }
};

struct Architecture {
    std::string family;     // the reader that filled this: gpt2, bert, llama, gpt_neox, ...
    std::string modelType;  // config.json "model_type" as written
    // What of the checkpoint is not shown, for the user ("image inputs are not shown" for a
    // multimodal model read as its text model); empty when everything is.
    std::string notShown;
    // quantization_config's quant_method when the family decodes it ("mxfp4": gpt-oss's experts,
    // decoded block by block where a product reads them), or a GGUF file's formats ("GGUF: Q4_K
    // 12 tensors, Q6_K 3, F32 9"); empty for a folder of plain float weights.
    std::string quantisation;
    int layers = 0;
    int heads = 0;    // query heads
    int kvHeads = 0;  // key/value heads (= heads unless grouped-query attention)
    int dModel = 0;
    int headDim = 0;   // d_k
    int valueDim = 0;  // a value head's width where it differs from d_k (latent attention)
    int dFF = 0;       // MLP hidden width
    int vocabSize = 0;
    int contextLength = 0;  // maximum positions
    int typeVocabSize = 0;  // token-type (segment) embeddings; 0 = none

    // Embeddings: token embedding · embeddingScale (+ learned position row i + positionOffset).
    float embeddingScale = 1.0f;
    // A pre-norm layer adds each sublayer's output times this to the residual stream (Granite's
    // residual_multiplier).
    float residualScale = 1.0f;
    // Token embeddings narrower than d_model, projected up after the lookup and back down before
    // the output head (OPT-350m's word_embed_proj_dim); 0: d_model wide, no projections.
    int embeddingWidth = 0;
    Positions positions = Positions::Learned;
    int positionOffset = 0;             // OPT: 2; RoBERTa: padding_idx + 1
    Rotary rotary;                      // with rotary positions: global layers' (or every layer's)
    std::optional<Rotary> localRotary;  // local layers' own (Gemma-3, ModernBERT); else rotary

    // Blocks.
    NormKind norm = NormKind::LayerNorm;
    float normEps = 1e-5f;
    bool preNorm = true;            // norm before each sublayer; false: after its residual (BERT)
    bool parallelResidual = false;  // x + attn(ln1 x) + mlp(ln2 x) (GPT-NeoX)
    Activation activation = Activation::GeluTanh;
    Activation headActivation = Activation::GeluExact;  // masked-LM head transform
    MixtureOfExperts moe;                               // the layers whose kind has experts
    // Biases a config switches on: on q, k and v, on o (Llama's attention_bias sets both,
    // Seed-OSS's attention_out_bias the second), on the gated MLP's gate, up and down
    // (mlp_bias). Families whose biases are fixed bind them without asking.
    bool attentionBias = false;
    bool attentionOutputBias = false;
    bool mlpBias = false;

    // Attention.
    bool causal = true;
    float attentionScale = 0.0f;    // multiplies q·k; 0: 1/sqrt(d_k) (AttentionOptions::scaleFor)
    float attentionSoftCap = 0.0f;  // scores := cap·tanh(scores/cap) before masking; 0: none
    // Local layers' keys: i-window < j <= i in a causal stack; |i - j| <= window in a
    // bidirectional one (ModernBERT's local_attention / 2). 0: none.
    int slidingWindow = 0;
    int attentionChunk = 0;  // chunked layers' chunk of positions (Llama 4's attention_chunk_size)
    QkNorm qkNorm = QkNorm::None;
    bool qkNormAfterRotary = false;  // Hunyuan: the norms take the rotated q and k
    LatentAttention latent;          // DeepSeek's projections instead of W_Q, W_K, W_V
    KeyIndexer keyIndexer;           // DeepSeek sparse attention's top-k keys per query
    QueryTemperature queryTemperature;
    GatedDeltaNet deltaNet;  // the linear layers' (LayerKind::mixer)
    Mamba2 mamba2;           // the state-space layers' (LayerKind::mixer)
    ShortConv shortConv;     // the short-convolution layers' (LayerKind::mixer)
    // Falcon-H1: a Mamba-2 mixer beside every layer's attention, reading the same normed input,
    // its output added to the attention's; the shape of its heads (absent elsewhere).
    std::optional<LayerKind> besideMamba;
    ProjectionScales projectionScales;
    // Gated attention (Qwen3.5, Qwen3-Next full layers): q_proj gives each head's query and a
    // gate of the same width; the head's output is multiplied by σ(gate) before o_proj.
    bool outputGate = false;
    // gpt-oss: a learned logit per head joins every row's softmax and takes a share of it, so
    // attention rows sum to less than one (LayerWeights::attentionSinks).
    bool attentionSinks = false;
    // QKV Lab's trained full-bilinear heads: each head's query projection is its own
    // d_model x d_model W_h, its key projection the identity (headDim = d_model), its values
    // valueDim = d_k wide. No W_Q or W_K exists to share or tie (configurationApplies).
    bool bilinearHeads = false;
    ResidualStreams streams;        // Gemma 3n's AltUp
    PerLayerInputs perLayerInputs;  // Gemma 3n's
    // LAuReL (Gemma 3n): beside each attention, x + norm(up(down x)) of this rank; 0: none.
    int laurelRank = 0;
    // One per layer once read (validation fills it from slidingWindow when a reader left it
    // empty: every layer local when a window is set).
    std::vector<LayerKind> layerKinds;

    // Output.
    bool tiedEmbeddings = true;    // output projection = token embedding matrix
    float logitSoftCap = 0.0f;     // logits := cap·tanh(logits/cap); 0: none
    float logitInputScale = 1.0f;  // multiplies the last hidden state first (T5 tied: 1/√d)

    // Encoder-decoder models (Marian, T5). The fields above describe the encoder, the stack the
    // input ids enter; the decoder reads the target ids and, through cross-attention in each of
    // its layers, the encoder's output: decoderArchitecture().
    int decoderLayers = 0;  // 0: not an encoder-decoder model
    int decoderHeads = 0;
    int decoderHeadDim = 0;
    int decoderFF = 0;
    int decoderStartToken = 0;  // the decoder's first input id
    int eosToken = -1;          // the token that ends what the decoder writes (-1: none)
    // T5's relative position bias: a learned value per head and bucket of the key-query offset,
    // added to the scores of every self-attention layer of a stack (not cross-attention).
    int relativeBuckets = 0;  // 0: none
    int relativeMaxDistance = 0;

    int kvGroup() const { return heads / kvHeads; }  // query heads per key/value head
    // The description as one layer sees it: headDim and kvHeads are the layer's own where it has
    // them (Gemma 4), so code that handles one layer reads them as for any model.
    Architecture atLayer(int layer) const {
        Architecture a = *this;
        a.heads = headsOf(layer);
        a.headDim = headDimOf(layer);
        a.kvHeads = kvHeadsOf(layer);
        if (kindOf(layer).valueDim > 0) a.valueDim = kindOf(layer).valueDim;
        return a;
    }
    // The description as the Mamba-2 mixer beside a layer's attention sees it (besideMamba).
    Architecture besideAt(int layer) const {
        Architecture a = *this;
        a.layerKinds.assign(layers, *besideMamba);
        return a.atLayer(layer);
    }
    int headsOf(int layer) const {
        if (mixerOf(layer) == Mixer::None || mixerOf(layer) == Mixer::ShortConv) return 0;
        return kindOf(layer).heads > 0 ? kindOf(layer).heads : heads;
    }
    // Whether the layer's heads show an implicit attention (no softmax).
    bool isImplicit(int layer) const {
        return mixerOf(layer) == Mixer::GatedDeltaNet || mixerOf(layer) == Mixer::Mamba2;
    }
    // Where a head picker starts: the first layer that has heads (0 when none has).
    int firstLayerWithHeads() const {
        for (int l = 0; l < layers; ++l)
            if (headsOf(l) > 0) return l;
        return 0;
    }
    // The most heads a layer has: the width of a grid of every layer's heads.
    int mostHeads() const {
        int most = heads;
        for (int l = 0; l < layers; ++l) most = std::max(most, headsOf(l));
        return most;
    }
    int headDimOf(int layer) const {
        return kindOf(layer).headDim > 0 ? kindOf(layer).headDim : headDim;
    }
    int kvHeadsOf(int layer) const {
        return kindOf(layer).kvHeads > 0 ? kindOf(layer).kvHeads : kvHeads;
    }
    // Whether some layer's heads differ in width or key/value heads from the model's.
    bool headsVaryByLayer() const {
        for (int l = 0; l < layers; ++l)
            if (kindOf(l).heads > 0 || kindOf(l).headDim > 0 || kindOf(l).kvHeads > 0) return true;
        return false;
    }
    // The layers whose values are their keys (LayerKind::valueIsKey).
    int valueIsKeyLayers() const {
        int count = 0;
        for (int l = 0; l < layers; ++l) count += kindOf(l).valueIsKey;
        return count;
    }
    int valueWidth() const { return valueDim > 0 ? valueDim : headDim; }
    // Whether a later layer attends over layer l's keys and values (LayerKind::keyValueSource).
    bool lendsKeyValues(int layer) const {
        for (int l = layer + 1; l < layers; ++l)
            if (kindOf(l).keyValueSource == layer) return true;
        return false;
    }
    bool sharesKeyValues() const {
        for (int l = 0; l < layers; ++l)
            if (kindOf(l).keyValueSource >= 0) return true;
        return false;
    }
    Mixer mixerOf(int layer) const { return kindOf(layer).mixer; }
    // The layer's kind as the command line and the Python module name it: "attention",
    // "attention_sliding", "attention_chunked", "attention_sparse" (an indexer's top-k keys),
    // "linear_attention", "mamba2", "short_conv",
    // "attention+mamba2" (a
    // Mamba-2 mixer beside the attention), or for a block without a token mixer "mlp" or "moe".
    std::string kindName(int layer) const {
        switch (mixerOf(layer)) {
            case Mixer::GatedDeltaNet:
                return "linear_attention";
            case Mixer::Mamba2:
                return "mamba2";
            case Mixer::ShortConv:
                return "short_conv";
            case Mixer::None:
                return kindOf(layer).experts ? "moe" : "mlp";
            case Mixer::Attention:
                break;
        }
        if (besideMamba) return "attention+mamba2";
        if (chunkOf(layer) > 0) return "attention_chunked";
        if (keyIndexer.present()) return "attention_sparse";
        return windowOf(layer) > 0 ? "attention_sliding" : "attention";
    }
    bool hasMixer(Mixer mixer) const {
        for (int l = 0; l < layers; ++l)
            if (mixerOf(l) == mixer) return true;
        return false;
    }
    // A hybrid: some layer mixes its tokens without a softmax, or not at all.
    bool isHybrid() const {
        return hasMixer(Mixer::GatedDeltaNet) || hasMixer(Mixer::Mamba2) ||
               hasMixer(Mixer::ShortConv) || hasMixer(Mixer::None) || besideMamba.has_value();
    }
    int tokenWidth() const { return embeddingWidth > 0 ? embeddingWidth : dModel; }
    // A description no reader filled (a test's, the benchmark's) has every layer alike.
    LayerKind kindOf(int layer) const {
        if (layer >= 0 && layer < static_cast<int>(layerKinds.size())) return layerKinds[layer];
        return {slidingWindow > 0, true, false};
    }
    int windowOf(int layer) const { return kindOf(layer).local ? slidingWindow : 0; }
    int chunkOf(int layer) const { return kindOf(layer).chunked ? attentionChunk : 0; }
    // Whether the layer's queries carry the query temperature.
    bool warmsQueries(int layer) const {
        return queryTemperature.present() &&
               (!queryTemperature.nopeLayersOnly || rotaryOf(layer) == nullptr);
    }
    // The rotary embedding of a layer; null without rotary positions or in a NoPE layer.
    const Rotary* rotaryOf(int layer) const {
        if (positions != Positions::Rotary || !kindOf(layer).rotary) return nullptr;
        return kindOf(layer).local && localRotary ? &*localRotary : &rotary;
    }
    // What kind a layer is where a model mixes kinds or windows them: "local, window 512,
    // rotary θ=10000", "global, rotary θ=1000000, linear ×8", "global, NoPE"; "" where every
    // layer is a plain global one (GPT-2, Llama).
    // Gemma 4's global layers add their heads and ", W_V = W_K (tied by the model)".
    std::string describeLayer(int layer) const {
        bool mixed = localRotary.has_value() || headsVaryByLayer() || valueIsKeyLayers() > 0 ||
                     isHybrid() || queryTemperature.present() || keyIndexer.present() ||
                     sharesKeyValues();
        for (int l = 0; l < layers; ++l)
            mixed |= windowOf(l) > 0 || chunkOf(l) > 0 ||
                     (positions == Positions::Rotary && !kindOf(l).rotary);
        if (!mixed) return {};
        if (mixerOf(layer) == Mixer::GatedDeltaNet)
            return "Gated DeltaNet, implicit attention, " + std::to_string(kvHeadsOf(layer)) +
                   " key heads, " + std::to_string(headsOf(layer)) + " value heads";
        if (mixerOf(layer) == Mixer::Mamba2)
            return "Mamba-2, implicit attention, " + std::to_string(headsOf(layer)) + " heads of " +
                   std::to_string(kindOf(layer).valueDim) + " (x), B and C in " +
                   std::to_string(kvHeadsOf(layer)) + " groups of state " +
                   std::to_string(headDimOf(layer));
        if (mixerOf(layer) == Mixer::ShortConv)
            return "short convolution C · conv(B · x), " + std::to_string(shortConv.convKernel) +
                   " taps a channel, no heads";
        if (mixerOf(layer) == Mixer::None)
            return kindOf(layer).experts ? "mixture of experts only, no heads"
                                         : "MLP only, no heads";
        std::string text =
            windowOf(layer) > 0 ? "local, window " + std::to_string(windowOf(layer))
            : chunkOf(layer) > 0
                ? "chunked, chunks of " + std::to_string(chunkOf(layer)) + " tokens"
            : keyIndexer.present()
                ? "sparse, " + (kindOf(layer).reusesKeys
                                    ? std::string("the previous layer's keys")
                                    : "its indexer's top " + std::to_string(keyIndexer.topK) +
                                          " keys per query")
                : std::string("global");
        if (positions == Positions::Rotary)
            text += rotaryOf(layer) ? ", " + rotaryOf(layer)->describe() : std::string(", NoPE");
        if (headsVaryByLayer()) {
            const int kv = kvHeadsOf(layer);
            text += ", d_k " + std::to_string(headDimOf(layer)) + ", " + std::to_string(kv) +
                    (kv == 1 ? " key/value head" : " key/value heads");
        }
        if (kindOf(layer).valueIsKey) text += ", W_V = W_K (tied by the model)";
        if (const int source = kindOf(layer).keyValueSource; source >= 0)
            text += ", K and V are layer " + std::to_string(source) + "'s (shared)";
        else if (lendsKeyValues(layer))
            text += ", its K and V serve later layers too";
        if (kindOf(layer).gateCutoff > 0.0f) {
            char cutoff[80];
            std::snprintf(cutoff, sizeof cutoff, ", MLP gate above its mean + %.4g std only",
                          static_cast<double>(kindOf(layer).gateCutoff));
            text += cutoff;
        }
        if (warmsQueries(layer)) {
            char temperature[112];
            const std::string at = queryTemperature.offset
                                       ? "(p+" + std::to_string(queryTemperature.offset) + ")"
                                       : "p";
            std::snprintf(
                temperature, sizeof temperature, ", queries × 1 + %g·ln(1 + ⌊%s/%d⌋) at position p",
                static_cast<double>(queryTemperature.beta), at.c_str(), queryTemperature.interval);
            text += temperature;
        }
        if (outputGate) text += ", output gate σ(gate)";
        if (besideMamba)
            text += "; Mamba-2 beside, " + std::to_string(besideMamba->heads) + " heads of " +
                    std::to_string(besideMamba->valueDim) + ", state " +
                    std::to_string(besideMamba->headDim);
        return text;
    }
    // Whether inputs of a and b tokens rotate every position alike (dynamic and longrope
    // scalings change with the length): what prefix reuse needs.
    bool rotationsAgree(int a, int b) const {
        if (positions != Positions::Rotary) return true;
        for (const Rotary* r : {&rotary, localRotary ? &*localRotary : &rotary})
            if (r->dependsOnLength() && !(r->frequencies(a) == r->frequencies(b))) return false;
        return true;
    }
    int expertLayers() const {
        int count = 0;
        for (int l = 0; l < layers; ++l) count += kindOf(l).experts;
        return count;
    }
    // "8 experts 14336 wide, 2 per token (weights renormalised), in 32 of 32 layers"; "" without.
    std::string describeExperts() const {
        if (expertLayers() == 0) return {};
        std::string weights = moe.router == Router::SigmoidTopK ? "sigmoid scores, " : "";
        weights += moe.router == Router::TopKSoftmax   ? "a softmax of the chosen logits"
                   : moe.router == Router::TopKSigmoid ? "the chosen logits' sigmoids"
                   : moe.normalizeTopK                 ? "renormalised"
                                                       : "as routed";
        if (moe.weighsInput) weights += ", scaling the expert's input";
        if (moe.groups > 1)
            weights += ", from the best " + std::to_string(moe.groupsKept) + " of " +
                       std::to_string(moe.groups) + " groups";
        if (moe.scale != 1.0f) {
            char factor[32];
            std::snprintf(factor, sizeof factor, "%g", moe.scale);
            weights += std::string(", times ") + factor;
        }
        std::string text = std::to_string(moe.experts) + " experts " + std::to_string(moe.width) +
                           " wide, " + std::to_string(moe.perToken) + " per token (weights " +
                           weights + "), in " + std::to_string(expertLayers()) + " of " +
                           std::to_string(layers) + " layers";
        if (moe.sharedWidth > 0)
            text += ", beside a shared MLP " + std::to_string(moe.sharedWidth) + " wide" +
                    (moe.sharedGated ? " (gated per token)" : "");
        return text;
    }
    // "4 AltUp streams (stream 0 computes), LAuReL of rank 8, per-layer inputs 16 wide"; "" for
    // one residual stream.
    std::string describeStreams() const {
        if (!streams.present()) return {};
        std::string text = std::to_string(streams.count) + " AltUp streams (stream " +
                           std::to_string(streams.active) + " computes)";
        if (laurelRank > 0) text += ", LAuReL of rank " + std::to_string(laurelRank);
        if (perLayerInputs.present())
            text += ", per-layer inputs " + std::to_string(perLayerInputs.width) + " wide";
        return text;
    }
    // "layers 2, 3 attend over layers 0, 1's keys and values"; "" where every layer computes its
    // own.
    std::string describeSharedKeyValues() const {
        std::string sharing, sources;
        for (int l = 0; l < layers; ++l)
            if (const int source = kindOf(l).keyValueSource; source >= 0) {
                sharing += (sharing.empty() ? "" : ", ") + std::to_string(l);
                sources += (sources.empty() ? "" : ", ") + std::to_string(source);
            }
        if (sharing.empty()) return {};
        const bool one = sharing.find(',') == std::string::npos;
        return (one ? "layer " : "layers ") + sharing + " attend" + (one ? "s" : "") +
               " over layer" + (one ? " " : "s ") + sources + "'s keys and values";
    }
    // "queries through a rank-1536 latent, keys and values from a rank-512 one; per head 128 +
    // 64 rotary dims (one rotary key for every head), values 128"; "" without latent attention.
    std::string describeLatent() const {
        if (!latent.present()) return {};
        const std::string query =
            latent.queryRank > 0
                ? "queries through a rank-" + std::to_string(latent.queryRank) + " latent, keys"
                : "keys";
        return query + " and values from a rank-" + std::to_string(latent.keyValueRank) +
               " latent; per head " + std::to_string(latent.nopeDim) + " + " +
               std::to_string(latent.ropeDim) +
               " rotary dims (one rotary key for every head), values " +
               std::to_string(valueWidth());
    }
    KeyMask keyMask(int layer) const {
        if (!causal) return {false, 0, windowOf(layer)};
        return {true, windowOf(layer), 0, chunkOf(layer)};
    }
    bool isEncoderDecoder() const { return decoderLayers > 0; }
    // The decoder's stack as a description of its own: causal, with the decoder's sizes.
    Architecture decoderArchitecture() const {
        Architecture d = *this;
        d.layers = decoderLayers;
        d.heads = d.kvHeads = decoderHeads;
        d.headDim = decoderHeadDim;
        d.dFF = decoderFF;
        d.causal = true;
        d.decoderLayers = 0;
        d.layerKinds.assign(decoderLayers, LayerKind{});
        return d;
    }
};

}  // namespace qkv
