// Seed-OSS (keys under "model."): Llama's pre-norm decoder with q, k and v biases
// (attention_bias), a bias on the output projection only with attention_out_bias, and a head_dim
// of its own (not hidden_size / heads).
#include "core/model/families/binding.h"

namespace qkv::families {
namespace {

void read(const ConfigReader& r, Architecture& c) {
    readRotaryDecoder(r, c);
    c.attentionBias = r.boolOr("attention_bias", true);
    c.attentionOutputBias = r.boolOr("attention_out_bias", false);
    c.mlpBias = r.boolOr("mlp_bias", false);
}

ModelWeights bind(TensorBinder& b, const Architecture& c) {
    return bindLlamaDecoder(b, c, c.attentionBias, c.attentionOutputBias);
}

}  // namespace

ModelFamily seedOss() { return {"seed_oss", {"seed_oss"}, {"model.", ""}, read, bind}; }

}  // namespace qkv::families
