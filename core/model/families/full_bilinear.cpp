// QKV Lab's own full-bilinear GPT-2 (`qkvlab-cli train --config full-bilinear`): GPT-2's
// names and config keys, but each layer's attention is h.N.attn.sources (weight [d, (H+1) d],
// bias [(H+1) d]) = [W_1 | ... | W_H | W_V]: head h scores S_ij = (x_i W_h + c_h) . x_j / sqrt(d_k)
// with its own d x d W_h, and reads d_k = d / H value columns. It maps onto the forward as a
// head of width d_model whose query projection is W_h (bias c_h) and whose key projection is
// the identity, with values d_k wide and the score scale 1/sqrt(d_k) — so M_h = W_h I = W_h is
// what the weight analysis decomposes.
#include <cmath>

#include "core/model/families/binding.h"

namespace qkv::families {
namespace {

void read(const ConfigReader& r, Architecture& c) {
    gpt2().read(r, c);
    const std::string tying = r.stringOr("qkvlab_attention_tying", "full-bilinear");
    if (tying != "full-bilinear")
        r.fail("qkvlab_attention_tying \"" + tying + "\" in a qkvlab-full-bilinear model");
    const int dk = headDimFromWidth(c, "config.json");
    c.headDim = c.dModel;  // the query and key of a head: x W_h + c_h and x itself
    c.valueDim = dk;
    c.attentionScale = 1.0f / std::sqrt(static_cast<float>(dk));
    c.bilinearHeads = true;
}

// [I | I | ... | I], d x heads*d: every head's key is the layer's (normed) input itself.
std::vector<float> identityKeys(int d, int heads) {
    std::vector<float> keys(static_cast<size_t>(d) * heads * d, 0.0f);
    for (int r = 0; r < d; ++r)
        for (int h = 0; h < heads; ++h) keys[static_cast<size_t>(r) * heads * d + h * d + r] = 1;
    return keys;
}

ModelWeights bind(TensorBinder& b, const Architecture& c) {
    const int d = c.dModel, heads = c.heads, values = heads * c.valueWidth();
    const MatrixView keys = b.computedMatrix(identityKeys(d, heads), d, heads * d);
    return bindGpt2Stack(b, c, [&](const std::string& p, LayerWeights& layer) {
        const int columns = heads * d + values;
        const MatrixView sources = b.matrix(p + "attn.sources.weight", d, columns);
        const VectorView bias = b.vector(p + "attn.sources.bias", columns);
        layer.query = {sources.columns(0, heads * d), bias.slice(0, heads * d)};
        layer.key = {keys, {}};
        layer.value = {sources.columns(heads * d, values), bias.slice(heads * d, values)};
    });
}

}  // namespace

// No transformers class computes it.
ModelFamily fullBilinear() {
    ModelFamily f{"qkvlab-full-bilinear", {"qkvlab-full-bilinear"}, {""}, read, bind};
    f.transformers = std::nullopt;
    return f;
}

}  // namespace qkv::families
