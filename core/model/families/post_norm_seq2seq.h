#pragma once
// What Marian and BART share (HF's MarianModel began as a copy of BartModel): a post-LayerNorm
// encoder-decoder with biases everywhere, token embeddings shared by encoder, decoder and output
// head ("shared.weight"), and logits plus final_logits_bias. The two differ only in their
// positions and an embedding LayerNorm, which their own files bind.
#include "core/model/families/binding.h"

namespace qkv::families {

struct Seq2SeqDefaults {
    const char* activation;  // activation_function when the config gives none
    bool scaleEmbedding;     // scale_embedding when the config gives none
    int decoderStartToken;   // decoder_start_token_id when the config gives none; -1: pad
};

// Reads the shared shape keys (d_model, encoder_/decoder_ layers, heads, ffn_dim, vocab) and
// refuses configs whose layers are pre-norm (mBART-style normalize_before, add_final_layer_norm)
// or whose vocabularies are separate.
void readPostNormSeq2Seq(const ConfigReader& r, Architecture& c, const Seq2SeqDefaults& defaults);

// Binds shared.weight, both stacks' layers, the output head and final_logits_bias; positions and
// embedding norms are the family's.
ModelWeights bindPostNormSeq2Seq(TensorBinder& b, const Architecture& c);

}  // namespace qkv::families
