#pragma once
// What a forward pass captured: per layer the Q, K, V slot projections (after rotary embedding
// for Q and K) of every head, and for the selected heads the score matrix S (scaled, transformed,
// before masking; without T5's position bias) and the attention probabilities A. Host memory,
// row-major; n_q x n_k per head (square but in cross-attention).
#include <Eigen/Core>
#include <optional>
#include <vector>

#include "core/backend/backend.h"
#include "core/model/routing.h"

namespace qkv {

using RowMatrixXf = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using ConstMatrixMap = Eigen::Map<const RowMatrixXf, 0, Eigen::OuterStride<>>;

// Which heads keep their n x n matrices, and which layers their q, k and v.
struct CaptureSelection {
    std::optional<int> layer;  // all layers when empty
    std::optional<int> head;   // all heads when empty
    bool scores = true;
    bool probabilities = true;
    // q, k and v of every layer; false: of the selected layers only (the app at long inputs,
    // where a GPU would spend most of a forward moving every layer's vectors to the host).
    bool allVectors = true;

    bool includes(int l, int h) const { return includesLayer(l) && (!head || *head == h); }
    bool includesLayer(int l) const { return !layer || *layer == l; }
    bool keepsVectors(int l) const { return allVectors || includesLayer(l); }
};

struct LayerTrace {
    AttentionLayout layout;  // how query, key and value hold this layer's heads
    RowMatrixXf query;       // n x (heads / queryGroup) * d_k
    RowMatrixXf key;
    RowMatrixXf value;
    std::vector<RowMatrixXf> scores;  // per query head; empty matrix when not captured
    // Per query head: the weights applied to the values — a softmax layer's probabilities, or a
    // linear layer's implicit attention (Architecture::mixerOf), rows not summing to one.
    std::vector<RowMatrixXf> probabilities;
    bool implicit = false;  // the probabilities are a linear layer's implicit attention
    // Gated attention (Architecture::outputGate): the gate's logits, n x heads·d_k, where the
    // layer's heads are captured (empty elsewhere); AttentionTrace::outputGate reads them.
    RowMatrixXf gate;
    // A Mamba-2 layer's skip D per head (out_t = Σ_s M_ts x_s + D x_t), where its heads are
    // captured; empty elsewhere.
    std::vector<float> skip;
    // A short-convolution layer's taps, channels x kernel (tap kernel-1 weighs the current
    // token), where the layer is captured; empty elsewhere.
    RowMatrixXf taps;
    // A mixture-of-experts layer's choice per token; empty in other layers.
    std::vector<TokenRouting> routing;
    // Falcon-H1: the trace of the Mamba-2 mixer beside the attention (its implicit maps, skips,
    // C, B and x); empty elsewhere.
    std::vector<LayerTrace> beside;
    // DeepSeek sparse attention: each query's kept keys (in increasing order) and, where the layer
    // ran its own indexer and is captured, the indexer's n x n scores; empty elsewhere.
    std::vector<std::vector<int>> selectedKeys;
    RowMatrixXf indexerScores;
};

// Queues q, k and v's download into the layer's trace (its query, key and value rows).
void keepSlotVectors(Backend& be, const Tensor& q, const Tensor& k, const Tensor& v,
                     LayerTrace& traced);

class AttentionTrace {
  public:
    AttentionTrace() = default;
    // `keys`: the tokens keys and values come from, when not the queries' own (cross-attention:
    // target queries read source keys).
    AttentionTrace(int tokens, int heads, int keys = -1)
        : m_tokens(tokens), m_keys(keys < 0 ? tokens : keys), m_heads(heads) {}

    int tokens() const { return m_tokens; }   // queries: rows of each head's matrices
    int keyTokens() const { return m_keys; }  // keys: their columns
    int layerCount() const { return static_cast<int>(m_layers.size()); }
    int headCount() const { return m_heads; }  // the most any layer has
    // Layer `layer`'s heads where layers differ (a hybrid's linear layers have value heads of
    // their own count): the heads its matrices are kept for.
    int headCount(int layer) const {
        return static_cast<int>(m_layers.at(layer).probabilities.size());
    }
    // Whether layer `layer`'s matrices are a linear layer's implicit attention (signed, rows not
    // summing to one, no scores) rather than softmax probabilities.
    bool isImplicit(int layer) const { return m_layers.at(layer).implicit; }
    // Gated attention: each query's mean σ(gate) over head `head`'s width; empty where the layer
    // has no gate or was not captured.
    std::vector<float> outputGate(int layer, int head) const;
    // Whether the heads had attention sinks (gpt-oss): then each probability row sums to one
    // minus what its sink took.
    bool hasSinks() const { return m_sinks; }
    void setHasSinks(bool sinks) { m_sinks = sinks; }

    // n x d_k views of what query head `head` used in each slot (d_k: the layer's); they throw
    // for a layer whose vectors were not kept (CaptureSelection::allVectors).
    bool hasVectors(int layer) const;
    ConstMatrixMap query(int layer, int head) const;
    ConstMatrixMap key(int layer, int head) const;
    ConstMatrixMap value(int layer, int head) const;
    bool hasScores(int layer, int head) const;
    bool hasProbabilities(int layer, int head) const;
    const RowMatrixXf& scores(int layer, int head) const;  // throws when not captured
    const RowMatrixXf& probabilities(int layer, int head) const;

    std::vector<LayerTrace>& layers() { return m_layers; }
    const std::vector<LayerTrace>& layers() const { return m_layers; }

  private:
    const LayerTrace& withVectors(int layer) const;

    int m_tokens = 0;
    int m_keys = 0;
    int m_heads = 0;
    bool m_sinks = false;
    std::vector<LayerTrace> m_layers;
};

}  // namespace qkv
