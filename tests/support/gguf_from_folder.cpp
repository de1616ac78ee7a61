#include "tests/support/gguf_from_folder.h"

#include <algorithm>
#include <stdexcept>

namespace qkv::test {
namespace {

// llama.cpp stores row h·d + 2i + j of each head as Hugging Face's row h·d + j·d/2 + i (its
// rotary turns adjacent pairs, transformers' turns the two halves).
std::vector<float> interleaved(const float* rows, std::int64_t count, std::int64_t width,
                               std::int64_t heads) {
    const std::int64_t headDim = count / heads, half = headDim / 2;
    std::vector<float> out(count * width);
    for (std::int64_t h = 0; h < heads; ++h)
        for (std::int64_t j = 0; j < 2; ++j)
            for (std::int64_t i = 0; i < half; ++i)
                std::copy_n(rows + (h * headDim + j * half + i) * width, width,
                            out.begin() + (h * headDim + 2 * i + j) * width);
    return out;
}

}  // namespace

GgufFromFolder::GgufFromFolder(const std::filesystem::path& folder)
    : m_store(TensorStore::openFolder(folder)) {}

GgufFromFolder::GgufFromFolder(GgufFromFolder&&) noexcept = default;
GgufFromFolder::~GgufFromFolder() = default;

const TensorInfo& GgufFromFolder::tensor(const std::string& hfName) const {
    const TensorInfo* t = m_store->find(hfName);
    if (!t) throw std::runtime_error("the reference model has no tensor " + hfName);
    return *t;
}

std::vector<float> GgufFromFolder::values(const std::string& hfName) const {
    const TensorInfo& t = tensor(hfName);
    const float* values = m_store->floats(t);
    return {values, values + t.elementCount()};
}

void GgufFromFolder::add(const std::string& ggufName, const std::string& hfName,
                         int interleavedHeads, float shift) {
    const TensorInfo* t = m_store->find(hfName);
    if (!t) throw std::runtime_error("the reference model has no tensor " + hfName);
    const float* values = m_store->floats(*t);
    std::vector<float> data(values, values + t->elementCount());
    if (interleavedHeads > 0)
        data = interleaved(values, t->shape[0], t->shape[1], interleavedHeads);
    for (float& v : data) v += shift;
    m_gguf.addTensor(ggufName, std::vector<std::uint64_t>(t->shape.rbegin(), t->shape.rend()),
                     data);
}

void GgufFromFolder::addLatentKeyValueUp(const std::string& blk, const std::string& hfName,
                                         int heads, int nope) {
    const TensorInfo* t = m_store->find(hfName);
    if (!t) throw std::runtime_error("the reference model has no tensor " + hfName);
    const float* kv = m_store->floats(*t);
    const std::int64_t rank = t->shape[1], width = t->shape[0] / heads - nope;
    std::vector<float> keys(heads * rank * nope), values(heads * width * rank);
    for (std::int64_t h = 0; h < heads; ++h) {
        const float* head = kv + h * (nope + width) * rank;
        for (std::int64_t i = 0; i < nope; ++i)
            for (std::int64_t c = 0; c < rank; ++c)
                keys[(h * rank + c) * nope + i] = head[i * rank + c];
        std::copy_n(head + nope * rank, width * rank, values.begin() + h * width * rank);
    }
    const auto u = [](std::int64_t n) { return static_cast<std::uint64_t>(n); };
    m_gguf.addTensor(blk + "attn_k_b.weight", {u(nope), u(rank), u(heads)}, keys);
    m_gguf.addTensor(blk + "attn_v_b.weight", {u(rank), u(width), u(heads)}, values);
}

void GgufFromFolder::addEmbeddingsAndHead(bool untiedOutput, float normShift) {
    add("token_embd.weight", "model.embed_tokens.weight");
    add("output_norm.weight", "model.norm.weight", 0, normShift);
    if (untiedOutput) add("output.weight", "lm_head.weight");
}

void GgufFromFolder::addStacked(const std::string& ggufName,
                                const std::vector<std::string>& hfNames) {
    std::vector<float> data;
    std::vector<std::int64_t> shape;
    for (const std::string& name : hfNames) {
        const TensorInfo* t = m_store->find(name);
        if (!t || (!shape.empty() && t->shape != shape))
            throw std::runtime_error("cannot stack " + name);
        shape = t->shape;
        const float* values = m_store->floats(*t);
        data.insert(data.end(), values, values + t->elementCount());
    }
    m_gguf.addTensor(ggufName,
                     {static_cast<std::uint64_t>(shape[1]), static_cast<std::uint64_t>(shape[0]),
                      hfNames.size()},
                     data);
}

void GgufFromFolder::describe(const GgufShape& shape) {
    const std::string a = shape.arch + ".";
    m_gguf.addString("general.architecture", shape.arch);
    m_gguf.addUint32(a + "block_count", shape.layers);
    m_gguf.addUint32(a + "context_length", shape.context);
    m_gguf.addUint32(a + "embedding_length", shape.width);
    m_gguf.addUint32(a + "feed_forward_length", shape.feedForward);
    m_gguf.addUint32(a + "attention.head_count", shape.heads);
    if (shape.kvHeads > 0) m_gguf.addUint32(a + "attention.head_count_kv", shape.kvHeads);
    m_gguf.addFloat32(a + "rope.freq_base", shape.ropeBase);
    m_gguf.addFloat32(a + "attention.layer_norm_rms_epsilon", shape.normEps);
}

void GgufFromFolder::addExperts(const std::string& ggufName, const std::string& hfPrefix,
                                const std::string& hfSuffix, int count) {
    std::vector<std::string> names;
    for (int e = 0; e < count; ++e) names.push_back(hfPrefix + std::to_string(e) + hfSuffix);
    addStacked(ggufName, names);
}

void GgufFromFolder::addLayer(int layer, const LayerTensorNames& names, float shift) {
    const std::string blk = "blk." + std::to_string(layer) + ".";
    const std::string hf = "model.layers." + std::to_string(layer) + ".";
    for (const auto& [ours, theirs] : names)
        add(blk + ours + ".weight", hf + theirs + ".weight", 0, shift);
}

}  // namespace qkv::test
