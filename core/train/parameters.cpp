#include "core/train/parameters.h"

#include <algorithm>
#include <cmath>

#include "core/train/random.h"
#include "core/util/error.h"

namespace qkv::train {
namespace {

// Tensors start on 64-byte boundaries, so every row-major block is nicely aligned for SIMD.
constexpr std::size_t kAlign = 16;

// A factored head's score x_i W_Q W_K^T x_j with N(0, 0.02) factors has the variance of one
// with i.i.d. W entries of standard deviation 0.02^2 sqrt(d_k): full-bilinear starts there, so
// its first steps see scores of the factored head's scale.
void scaleBilinearColumns(const ModelShape& shape, float* weight) {
    const int d = shape.dModel, columns = shape.attentionColumns();
    const float factor = static_cast<float>(0.02 * std::sqrt(static_cast<double>(shape.headDim())));
    for (int r = 0; r < d; ++r)
        for (int c = 0; c < shape.heads * d; ++c)
            weight[static_cast<std::size_t>(r) * columns + c] *= factor;
}

}  // namespace

ParameterLayout::ParameterLayout(const ModelShape& shape) {
    const int d = shape.dModel, f = shape.dFF();
    wte = add("wte.weight", shape.vocab, d, true);
    wpe = add("wpe.weight", shape.context, d, true);
    for (int l = 0; l < shape.layers; ++l) {
        const std::string p = "h." + std::to_string(l) + ".";
        Layer layer;
        layer.ln1Gamma = add(p + "ln_1.weight", d, 1, false);
        layer.ln1Beta = add(p + "ln_1.bias", d, 1, false);
        layer.attnWeight = add(p + "attn.sources.weight", d, shape.attentionColumns(), true);
        layer.attnBias = add(p + "attn.sources.bias", shape.attentionColumns(), 1, false);
        layer.projWeight = add(p + "attn.c_proj.weight", d, d, true);
        layer.projBias = add(p + "attn.c_proj.bias", d, 1, false);
        layer.ln2Gamma = add(p + "ln_2.weight", d, 1, false);
        layer.ln2Beta = add(p + "ln_2.bias", d, 1, false);
        layer.fcWeight = add(p + "mlp.c_fc.weight", d, f, true);
        layer.fcBias = add(p + "mlp.c_fc.bias", f, 1, false);
        layer.outWeight = add(p + "mlp.c_proj.weight", f, d, true);
        layer.outBias = add(p + "mlp.c_proj.bias", d, 1, false);
        layers.push_back(layer);
    }
    lnfGamma = add("ln_f.weight", d, 1, false);
    lnfBeta = add("ln_f.bias", d, 1, false);
}

std::size_t ParameterLayout::add(const std::string& name, int rows, int cols, bool decay) {
    const std::size_t offset = m_size;
    m_tensors.push_back({name, offset, rows, cols, decay});
    m_size += (m_tensors.back().size() + kAlign - 1) / kAlign * kAlign;
    return offset;
}

const ParameterTensor& ParameterLayout::tensor(const std::string& name) const {
    for (const auto& t : m_tensors)
        if (t.name == name) return t;
    throw Error("internal error: no parameter " + name);
}

std::uint64_t ParameterLayout::count() const {
    std::uint64_t n = 0;
    for (const auto& t : m_tensors) n += t.size();
    return n;
}

std::vector<float> initialParameters(const ParameterLayout& layout, const ModelShape& shape,
                                     std::uint64_t seed) {
    std::vector<float> params(layout.size(), 0.0f);
    Random random(seed);
    const double residualStd = 0.02 / std::sqrt(2.0 * shape.layers);
    for (const ParameterTensor& t : layout.tensors()) {
        float* p = params.data() + t.offset;
        const bool gamma = t.name.find("ln_") != std::string::npos && t.name.ends_with(".weight");
        const bool residual =
            t.name.ends_with("attn.c_proj.weight") || t.name.ends_with("mlp.c_proj.weight");
        if (gamma) {
            std::fill(p, p + t.size(), 1.0f);
        } else if (t.decay) {
            const double std = residual ? residualStd : 0.02;
            for (std::size_t i = 0; i < t.size(); ++i)
                p[i] = static_cast<float>(std * random.normal());
        }
        if (shape.tying.fullBilinear && t.name.ends_with("attn.sources.weight"))
            scaleBilinearColumns(shape, p);
    }
    return params;
}

}  // namespace qkv::train
