#include "core/model/key_indexer.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "core/model/dense_layers.h"

namespace qkv {
namespace {

// host := t, queued: the indexer's downloads share one wait (Backend::synchronize).
void queueDownload(Backend& be, const Tensor& t, RowMatrixXf& host) {
    host.resize(t.rows(), t.cols());
    be.enqueueDownload(t, host.data());
}

// x's index heads rotated on their first rotary dims (the latent attention's frequencies, in the
// indexer's own pair order).
std::unique_ptr<Tensor> rotated(Backend& be, const Architecture& c, const Tensor& x) {
    RotaryFrequencies frequencies = c.rotary.frequencies(x.rows());
    frequencies.interleaved = c.keyIndexer.interleavedRope;
    auto y = be.create(x.rows(), x.cols());
    be.rope(x, c.keyIndexer.headDim, frequencies, 0, *y);
    return y;
}

// Query rows scored at once: a block's products are rows x heads x n floats (16 MB for 64 rows
// of 64 heads at 1,024 tokens).
constexpr int kQueryBlock = 64;

}  // namespace

KeySelection selectKeys(Backend& be, const Architecture& c, const DeviceLatentAttention& w,
                        const Tensor& x, const Tensor& queryLatent) {
    const KeyIndexer& indexer = c.keyIndexer;
    const int n = x.rows(), heads = indexer.heads, d = indexer.headDim;
    auto rawKeys = applyLinear(be, w.indexKey, x);
    auto normedKeys = be.create(n, d);
    be.layerNorm(*rawKeys, *w.indexKeyNorm.gamma, w.indexKeyNorm.beta.get(), indexer.normEps,
                 *normedKeys);
    const auto rotatedQueries = rotated(be, c, *applyLinear(be, w.indexQuery, queryLatent));
    const auto rotatedKeys = rotated(be, c, *normedKeys);
    const auto headWeights = applyLinear(be, w.indexHeadWeights, x);
    RowMatrixXf queries, keys, weights;
    queueDownload(be, *rotatedQueries, queries);
    queueDownload(be, *rotatedKeys, keys);
    queueDownload(be, *headWeights, weights);
    be.synchronize();
    weights /= std::sqrt(static_cast<float>(heads));
    const float scale = 1.0f / std::sqrt(static_cast<float>(d));

    KeySelection selection;
    selection.scores = RowMatrixXf::Zero(n, n);
    for (int first = 0; first < n; first += kQueryBlock) {
        const int rows = std::min(kQueryBlock, n - first), seen = first + rows;
        // Row (i, h) of the block: index head h of query first + i against every earlier key.
        const Eigen::Map<const RowMatrixXf> blockQueries(queries.data() + first * heads * d,
                                                         rows * heads, d);
        const RowMatrixXf products =
            ((blockQueries * keys.topRows(seen).transpose()) * scale).cwiseMax(0.0f);
        for (int i = 0; i < rows; ++i)
            for (int h = 0; h < heads; ++h)
                selection.scores.row(first + i).head(first + i + 1) +=
                    weights(first + i, h) * products.row(i * heads + h).head(first + i + 1);
    }
    selection.keys = topKeys(selection.scores, indexer.topK);
    return selection;
}

std::vector<std::vector<int>> topKeys(const RowMatrixXf& scores, int k) {
    std::vector<std::vector<int>> kept(scores.rows());
    for (int i = 0; i < scores.rows(); ++i) {
        std::vector<int>& row = kept[i];
        row.resize(i + 1);
        std::iota(row.begin(), row.end(), 0);
        if (i + 1 > k) {
            std::partial_sort(row.begin(), row.begin() + k, row.end(), [&](int a, int b) {
                return scores(i, a) > scores(i, b) || (scores(i, a) == scores(i, b) && a < b);
            });
            row.resize(k);
            std::sort(row.begin(), row.end());
        }
    }
    return kept;
}

std::unique_ptr<Tensor> selectionBias(Backend& be, const std::vector<std::vector<int>>& keys) {
    const int n = static_cast<int>(keys.size());
    RowMatrixXf bias = RowMatrixXf::Constant(n, n, kUnselectedKeyBias);
    for (int i = 0; i < n; ++i)
        for (int j : keys[i]) bias(i, j) = 0.0f;
    return be.upload(bias.data(), n, n);
}

}  // namespace qkv
