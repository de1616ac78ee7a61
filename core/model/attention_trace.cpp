#include "core/model/attention_trace.h"

#include <cmath>
#include <utility>

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

// A head past a layer's own count (a hybrid's layer with fewer heads) has nothing captured.
bool AttentionTrace::hasScores(int layer, int head) const {
    const auto& scores = m_layers.at(layer).scores;
    return head >= 0 && head < static_cast<int>(scores.size()) && scores[head].size() > 0;
}
bool AttentionTrace::hasProbabilities(int layer, int head) const {
    const auto& probabilities = m_layers.at(layer).probabilities;
    return head >= 0 && head < static_cast<int>(probabilities.size()) &&
           probabilities[head].size() > 0;
}

std::vector<float> AttentionTrace::outputGate(int layer, int head) const {
    const RowMatrixXf& gate = m_layers.at(layer).gate;
    const int heads = headCount(layer);
    if (gate.size() == 0 || head < 0 || head >= heads) return {};
    const int width = static_cast<int>(gate.cols()) / heads;
    std::vector<float> mean(gate.rows());
    for (Eigen::Index t = 0; t < gate.rows(); ++t) {
        double sum = 0.0;
        for (int i = 0; i < width; ++i)
            sum += 1.0 / (1.0 + std::exp(-static_cast<double>(gate(t, head * width + i))));
        mean[t] = static_cast<float>(sum / width);
    }
    return mean;
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

void keepSlotVectors(Backend& be, const Tensor& q, const Tensor& k, const Tensor& v,
                     LayerTrace& traced) {
    for (auto [tensor, target] :
         {std::pair{&q, &traced.query}, std::pair{&k, &traced.key}, std::pair{&v, &traced.value}}) {
        target->resize(tensor->rows(), tensor->cols());
        be.enqueueDownload(*tensor, target->data());
    }
}

}  // namespace qkv
