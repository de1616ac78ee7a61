#include "core/model/attention_trace.h"

#include "core/util/error.h"

namespace qkv {
namespace {

ConstMatrixMap headBlock(const RowMatrixXf& m, int headIndex, int headDim) {
    return ConstMatrixMap(m.data() + static_cast<std::ptrdiff_t>(headIndex) * headDim, m.rows(),
                          headDim, Eigen::OuterStride<>(m.cols()));
}

}  // namespace

bool AttentionTrace::hasVectors(int layer) const { return m_layers.at(layer).query.size() > 0; }

const LayerTrace& AttentionTrace::withVectors(int layer) const {
    if (!hasVectors(layer))
        throw Error("q, k and v of layer " + std::to_string(layer) + " were not kept");
    return m_layers[layer];
}

ConstMatrixMap AttentionTrace::query(int layer, int head) const {
    const LayerTrace& t = withVectors(layer);
    return headBlock(t.query, head / t.layout.queryGroup, t.layout.headDim);
}
ConstMatrixMap AttentionTrace::key(int layer, int head) const {
    const LayerTrace& t = withVectors(layer);
    return headBlock(t.key, head / t.layout.keyGroup, t.layout.headDim);
}
ConstMatrixMap AttentionTrace::value(int layer, int head) const {
    const LayerTrace& t = withVectors(layer);
    return headBlock(t.value, head / t.layout.valueGroup, t.layout.valueWidth());
}

bool AttentionTrace::hasScores(int layer, int head) const {
    return m_layers.at(layer).scores.at(head).size() > 0;
}
bool AttentionTrace::hasProbabilities(int layer, int head) const {
    return m_layers.at(layer).probabilities.at(head).size() > 0;
}

const RowMatrixXf& AttentionTrace::scores(int layer, int head) const {
    if (!hasScores(layer, head))
        throw Error("scores of layer " + std::to_string(layer) + " head " + std::to_string(head) +
                    " were not captured");
    return m_layers[layer].scores[head];
}

const RowMatrixXf& AttentionTrace::probabilities(int layer, int head) const {
    if (!hasProbabilities(layer, head))
        throw Error("attention of layer " + std::to_string(layer) + " head " +
                    std::to_string(head) + " was not captured");
    return m_layers[layer].probabilities[head];
}

}  // namespace qkv
