// Where a head's projections and output rows lie in the model's weights (head_metrics.h).
#include <optional>
#include <string>
#include <vector>

#include "core/analysis/head_metrics.h"
#include "core/analysis/matrix_metrics.h"
#include "core/util/error.h"

namespace qkv {
namespace {

void checkHead(const Architecture& c, int layer, int head) {
    if (layer < 0 || layer >= c.layers || head < 0 || head >= c.headsOf(layer))
        throw Error("no head " + std::to_string(head) + " in layer " + std::to_string(layer) +
                    " (the model has " + std::to_string(c.layers) + " layers)");
}

// Where a head's `width` entries of a stored order start when they are one run of stored
// columns (a whole head moved, or gated attention's query beside its gate); else nothing.
std::optional<int> storedRunStart(const std::vector<int>& order, int first, int width) {
    const int start = order.at(first);
    for (int i = 0; i < width; ++i)
        if (order.at(first + i) != start + i) return std::nullopt;
    return start;
}

// The layer whose weights fill a slot: a layer that attends over another layer's keys and values
// (Gemma 3n's shared layers) takes its key and value slots from that layer, whatever fills them
// there under the configuration; its query slot is its own.
const LayerWeights& slotWeights(const Model& model, int layer, Projection slot,
                                AttentionKind kind) {
    const ModelWeights& weights = model.weights();
    if (kind != AttentionKind::Self) return weights.decoderLayers[layer];
    const int source = model.architecture().kindOf(layer).keyValueSource;
    return weights.layers[slot != Projection::Query && source >= 0 ? source : layer];
}

}  // namespace

Eigen::MatrixXd HeadProjection::toDouble() const {
    if (order.empty()) return qkv::toDouble(view);
    Eigen::MatrixXd m(view.rows, static_cast<Eigen::Index>(order.size()));
    for (std::size_t c = 0; c < order.size(); ++c)
        m.col(static_cast<Eigen::Index>(c)) = qkv::toDouble(view.columns(order[c], 1));
    return m;
}

HeadProjection headProjection(const Model& model, const WConfiguration& config, int layer, int head,
                              Projection slot, AttentionKind kind, GqaPairing pairing) {
    checkHead(architectureOf(model, kind), layer, head);
    const Architecture c = architectureOf(model, kind).atLayer(layer);
    if (c.latent.present())
        throw Error("latent attention stores no per-head W_Q, W_K or W_V (latent_forms.h)");
    const Projection source = config.sourceOf(slot);
    const LayerWeights& w = slotWeights(model, layer, slot, kind);
    const bool cross = kind == AttentionKind::Cross;
    const int kvHead = pairing == GqaPairing::Modulo ? head % c.kvHeads : head / c.kvGroup();
    const bool linear = c.isImplicit(layer);  // query and key heads are its key heads
    // Columns first to first + width; a stored order keeps each head's columns within the head,
    // or takes them from one run of stored columns (gated attention's query beside its gate).
    auto block = [&](const LinearWeights& weights, int first, int width) -> HeadProjection {
        if (!weights.outputOrder.empty())
            if (const auto start = storedRunStart(weights.outputOrder, first, width))
                return {weights.weight.columns(*start, width), {}};
        HeadProjection p{weights.weight.columns(first, width), {}};
        for (int i = 0; i < width && !weights.outputOrder.empty(); ++i) {
            const int stored = weights.outputOrder.at(first + i) - first;
            if (stored < 0 || stored >= width)
                throw Error("internal error: a stored column order that crosses heads");
            p.order.push_back(stored);
        }
        return p;
    };
    switch (source) {
        case Projection::Query: {
            // A linear layer's value heads share their key head's query, as its keys.
            const int queryHead = linear ? kvHead : head;
            return block(cross ? w.crossQuery : w.query, queryHead * c.headDim, c.headDim);
        }
        case Projection::Key:
            return block(cross ? w.crossKey : w.key, kvHead * c.headDim, c.headDim);
        case Projection::Value:  // a linear layer's value heads are its heads
            return block(cross ? w.crossValue : w.value, (linear ? head : kvHead) * c.valueWidth(),
                         c.valueWidth());
    }
    throw Error("unknown projection");
}

std::optional<Eigen::VectorXd> headScoreGains(const Model& model, const WConfiguration& config,
                                              int layer, int head, AttentionKind kind,
                                              GqaPairing pairing) {
    checkHead(architectureOf(model, kind), layer, head);
    const Architecture c = architectureOf(model, kind).atLayer(layer);
    // A linear layer's q and k are unit vectors, a Mamba-2 layer's C and B unnormed: no gains.
    if (c.qkNorm == QkNorm::None || kind == AttentionKind::Cross || c.isImplicit(layer))
        return std::nullopt;
    const LayerWeights& w = slotWeights(model, layer, Projection::Query, kind);
    const LayerWeights& keySlot = slotWeights(model, layer, Projection::Key, kind);
    // Llama 4 normalises q and k on its RoPE layers only.
    if (w.queryNorm.gamma.empty() || w.keyNorm.gamma.empty()) return std::nullopt;
    const int kvHead = pairing == GqaPairing::Modulo ? head % c.kvHeads : head / c.kvGroup();
    const int dk = c.headDim;
    // The gains a slot filled from `source` carries: per head the norm's d_k weights, over the
    // whole projection the slice of the head whose projection fills the slot.
    auto gainsOf = [&](Projection source, const LayerWeights& slot) -> Eigen::VectorXd {
        if (source == Projection::Value) return Eigen::VectorXd::Ones(dk);
        const bool query = source == Projection::Query;
        const VectorView& gamma = (query ? slot.queryNorm : slot.keyNorm).gamma;
        const int first = c.qkNorm == QkNorm::Whole ? (query ? head : kvHead) * dk : 0;
        Eigen::VectorXd g(dk);
        for (int i = 0; i < dk; ++i) g(i) = gamma[first + i];
        return g;
    };
    return gainsOf(config.querySource, w).cwiseProduct(gainsOf(config.keySource, keySlot));
}

MatrixView headOutputRows(const Model& model, int layer, int head, AttentionKind kind) {
    checkHead(architectureOf(model, kind), layer, head);
    const Architecture c = architectureOf(model, kind).atLayer(layer);
    const ModelWeights& weights = model.weights();
    const LayerWeights& w =
        kind == AttentionKind::Self ? weights.layers[layer] : weights.decoderLayers[layer];
    const LinearWeights& output = kind == AttentionKind::Cross ? w.crossOutput : w.output;
    const int width = c.valueWidth(), first = head * width;
    if (output.inputOrder.empty()) return output.weight.rowRange(first, width);
    // A stored input order moves whole heads (a GGUF file's Qwen3.5 value heads).
    const auto start = storedRunStart(output.inputOrder, first, width);
    if (!start) throw Error("internal error: a stored input order that splits a head");
    return output.weight.rowRange(*start, width);
}

}  // namespace qkv
