#pragma once
// Architecture-neutral view of a checkpoint's weights: every linear layer as "in x out" (y = xW+b)
// over the memory-mapped tensors, so every family shares one forward pass. Nothing here owns
// memory; the views point into the TensorStore (or its float32 conversions) or into the few
// tensors a family's binder derives (Model keeps those).
#include <vector>

#include "core/backend/matrix_view.h"

namespace qkv {

struct LinearWeights {
    MatrixView weight;  // in x out
    VectorView bias;    // empty when the layer has none
    // The stored output column of each output the model uses, where the file keeps them in
    // another order (TensorInfo::rowOrder); empty: as stored. Products gather them back.
    std::vector<int> outputOrder = {};
};

struct NormWeights {
    VectorView gamma;
    VectorView beta;  // empty for RMSNorm
};

// One expert of a mixture: a gated MLP, out(act(gate x) · in x); with ClampedSwiGlu, `in`
// holds gate and up interleaved and `gate` is empty (gpt-oss), or, as a GGUF file keeps them,
// `in` the up projection and `gate` the gate.
struct ExpertWeights {
    LinearWeights in, gate, out;
};

// Multi-head latent attention's projections (Architecture::latent), as the checkpoint stores
// them: the query's optional bottleneck (queryDown, its norm, then queryUp; or queryUp alone),
// the shared latent and rotary key (keyValueDown's first keyValueRank columns and the rest),
// the latent's norm, and keyValueUp giving each head's [key | value] from the normed latent.
struct LatentAttentionWeights {
    LinearWeights queryDown;
    NormWeights queryNorm;
    LinearWeights queryUp;  // heads x [nope | rope] columns
    LinearWeights latent, rotaryKey;
    NormWeights latentNorm;
    LinearWeights keyValueUp;  // heads x [key nope | value] columns
};

struct LayerWeights {
    NormWeights attentionNorm;        // pre-norm: input of attention; post-norm: after its residual
    NormWeights attentionOutputNorm;  // Gemma-2: on the attention output, before the residual
    LinearWeights query;              // d_model x heads*d_k
    LinearWeights key;                // d_model x kvHeads*d_k
    LinearWeights value;              // d_model x kvHeads*d_k
    LinearWeights output;             // heads*d_k x d_model
    NormWeights queryNorm, keyNorm;   // QK-norm (Qwen3, Gemma-3, OLMo 2); empty otherwise
    NormWeights valueNorm;            // Gemma 4: an RMSNorm of each value head (gamma all ones)
    VectorView attentionSinks;        // gpt-oss: a logit per query head (AttentionOptions::sinks)
    LatentAttentionWeights latent;    // DeepSeek: instead of query, key and value
    NormWeights mlpNorm;
    NormWeights mlpOutputNorm;  // Gemma-2: on the MLP output, before the residual
    LinearWeights mlpIn;        // GPT-2 c_fc, BERT intermediate, Llama up_proj
    LinearWeights mlpGate;      // gated MLPs' gate_proj (empty otherwise)
    LinearWeights mlpOut;
    // A mixture-of-experts layer (Architecture::moe) instead of the MLP above (which then holds
    // the shared experts where the family has them): the router (d_model x experts), its
    // choice bias (DeepSeek-V3's e_score_correction_bias, only for choosing) and every expert.
    LinearWeights router;
    VectorView routerChoiceBias;
    std::vector<ExpertWeights> experts;
    // Decoder layers of encoder-decoder models: cross-attention between self-attention and the
    // MLP. Its query reads the decoder's stream, its key and value the encoder's output.
    NormWeights crossNorm;
    LinearWeights crossQuery, crossKey, crossValue, crossOutput;
    // Gemma 4's layer_scalar: the layer's output (the residual stream) is multiplied by it.
    float outputScale = 1.0f;
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
    MatrixView relativeBias;         // T5: buckets x heads, the encoder's self-attention
    MatrixView decoderRelativeBias;  // T5: buckets x heads, the decoder's self-attention
};

}  // namespace qkv
