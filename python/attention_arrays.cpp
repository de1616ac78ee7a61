#include "python/attention_arrays.h"

#include <algorithm>
#include <limits>

#include "core/analysis/head_metrics.h"
#include "core/util/error.h"

namespace qkv::python {
namespace {

// Appends an n x m matrix to `block`, row after row.
template <typename Matrix>
void append(DenseBlock& block, const Matrix& m) {
    for (Eigen::Index r = 0; r < m.rows(); ++r)
        for (Eigen::Index c = 0; c < m.cols(); ++c) block.values.push_back(m(r, c));
}

// Where a layer has no such matrix (a hybrid's layer with fewer heads, a linear layer's
// scores), its place in the stacked array holds NaN.
void appendMissing(DenseBlock& block, std::size_t count) {
    block.values.insert(block.values.end(), count, std::numeric_limits<float>::quiet_NaN());
}

}  // namespace

std::vector<int> allOrChecked(std::vector<int> chosen, int count, const char* what) {
    if (chosen.empty())
        for (int i = 0; i < count; ++i) chosen.push_back(i);
    for (int i : chosen)
        if (i < 0 || i >= count)
            throw Error(std::string("no ") + what + " " + std::to_string(i) + " (the model has " +
                        std::to_string(count) + ")");
    return chosen;
}

TraceArrays denseArrays(AttentionTrace& trace, std::vector<int> layers, std::vector<int> heads,
                        bool vectors) {
    TraceArrays out;
    out.layers = allOrChecked(std::move(layers), trace.layerCount(), "layer");
    out.heads = allOrChecked(std::move(heads), trace.headCount(), "head");
    const std::size_t l = out.layers.size(), h = out.heads.size();
    const std::size_t n = static_cast<std::size_t>(trace.tokens());
    const std::size_t keys = static_cast<std::size_t>(trace.keyTokens());
    const int first = out.layers.front(), firstHead = out.heads.front();
    bool probabilities = false, scores = false;
    for (int layer : out.layers) {
        probabilities = probabilities || trace.hasProbabilities(layer, firstHead);
        scores = scores || trace.hasScores(layer, firstHead);
    }
    // q, k and v stack only where every chosen layer has the same d_k (Gemma 4's do not).
    bool sameWidth = vectors;
    for (int layer : out.layers)
        sameWidth = sameWidth &&
                    trace.query(layer, firstHead).cols() == trace.query(first, firstHead).cols();
    if (vectors && !sameWidth)
        throw Error(
            "q, k and v: the chosen layers have heads of different widths; choose "
            "layers of one width");
    const std::size_t dk = vectors ? static_cast<std::size_t>(trace.query(first, 0).cols()) : 0;
    const std::size_t dv = vectors ? static_cast<std::size_t>(trace.value(first, 0).cols()) : 0;
    if (probabilities) out.attention.values.reserve(l * h * n * keys);
    if (scores) out.scores.values.reserve(l * h * n * keys);
    for (int layer : out.layers)
        for (int head : out.heads) {
            if (probabilities && !trace.hasProbabilities(layer, head)) {
                appendMissing(out.attention, n * keys);
            } else if (probabilities) {
                const RowMatrixXf& p = trace.probabilities(layer, head);
                append(out.attention, p);
                if (trace.hasSinks()) out.sinkShares.push_back(sinkShares(p));
            }
            if (scores && trace.hasScores(layer, head))
                append(out.scores, trace.scores(layer, head));
            else if (scores)
                appendMissing(out.scores, n * keys);
            if (vectors) {
                append(out.q, trace.query(layer, head));
                append(out.k, trace.key(layer, head));
                append(out.v, trace.value(layer, head));
            }
        }
    if (probabilities) out.attention.shape = {l, h, n, keys};
    if (scores) out.scores.shape = {l, h, n, keys};
    if (vectors) {
        out.q.shape = {l, h, n, dk};
        out.k.shape = {l, h, keys, dk};
        out.v.shape = {l, h, keys, dv};
    }
    trace = AttentionTrace();  // the copies are what the result keeps
    return out;
}

}  // namespace qkv::python
