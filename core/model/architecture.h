#pragma once
// The architecture-neutral description of a checkpoint that the forward pass reads: widths, norm
// kind and placement, residual style, positions, score scale, soft-caps, windows, activations.
// A model family's reader (core/model/families/) fills it from config.json; nothing downstream
// looks at the family's name.
#include <string>

#include "core/backend/activation.h"
#include "core/backend/key_mask.h"

namespace qkv {

enum class NormKind { LayerNorm, RmsNorm };
enum class Positions { Learned, Rotary };

struct Architecture {
    std::string family;     // the reader that filled this: gpt2, bert, llama, gpt_neox, ...
    std::string modelType;  // config.json "model_type" as written
    int layers = 0;
    int heads = 0;    // query heads
    int kvHeads = 0;  // key/value heads (= heads unless grouped-query attention)
    int dModel = 0;
    int headDim = 0;  // d_k
    int dFF = 0;      // MLP hidden width
    int vocabSize = 0;
    int contextLength = 0;  // maximum positions
    int typeVocabSize = 0;  // token-type (segment) embeddings; 0 = none

    // Embeddings: token embedding · embeddingScale (+ learned position row i + positionOffset).
    float embeddingScale = 1.0f;
    Positions positions = Positions::Learned;
    int positionOffset = 0;  // OPT: 2; RoBERTa: padding_idx + 1
    float ropeTheta = 10000.0f;
    int rotaryDims = 0;  // leading dimensions of each head that rotate (GPT-NeoX rotary_pct)

    // Blocks.
    NormKind norm = NormKind::LayerNorm;
    float normEps = 1e-5f;
    bool preNorm = true;            // norm before each sublayer; false: after its residual (BERT)
    bool parallelResidual = false;  // x + attn(ln1 x) + mlp(ln2 x) (GPT-NeoX)
    Activation activation = Activation::GeluTanh;
    Activation headActivation = Activation::GeluExact;  // masked-LM head transform

    // Attention.
    bool causal = true;
    float attentionScale = 0.0f;    // multiplies q·k; 0: 1/sqrt(d_k) (AttentionOptions::scaleFor)
    float attentionSoftCap = 0.0f;  // scores := cap·tanh(scores/cap) before masking; 0: none
    int slidingWindow = 0;          // keys i-window < j <= i; 0: none
    int slidingWindowPeriod = 1;    // layers l with l % period == 0 use the window

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
    int windowOf(int layer) const {
        return slidingWindow > 0 && layer % slidingWindowPeriod == 0 ? slidingWindow : 0;
    }
    int rotaryWidth() const { return rotaryDims > 0 ? rotaryDims : headDim; }
    KeyMask keyMask(int layer) const { return {causal, windowOf(layer)}; }
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
        return d;
    }
};

}  // namespace qkv
