// ERNIE 4.5 (keys under "model."): Llama's pre-norm decoder whose rotary embedding turns the
// interleaved pairs (2i, 2i + 1) of each head (GLM's layout) in float32; use_bias puts biases on
// q, k, v and o and on the MLP's gate, up and down. Embeddings tied unless the config says not.
#include "core/model/families/binding.h"

namespace qkv::families {
namespace {

void read(const ConfigReader& r, Architecture& c) {
    readRotaryDecoder(r, c);
    c.rotary.interleaved = true;
    c.tiedEmbeddings = r.boolOr("tie_word_embeddings", true);
    c.attentionBias = c.attentionOutputBias = c.mlpBias = r.boolOr("use_bias", false);
}

ModelWeights bind(TensorBinder& b, const Architecture& c) {
    return bindLlamaDecoder(b, c, c.attentionBias, c.attentionOutputBias);
}

}  // namespace

ModelFamily ernie4_5() { return {"ernie4_5", {"ernie4_5"}, {"model.", ""}, read, bind}; }

}  // namespace qkv::families
