#include "core/analysis/ov_circuit.h"

#include <algorithm>

#include "core/analysis/matrix_metrics.h"

namespace qkv {
std::optional<Eigen::MatrixXd> vocabularyRoundTrip(const Model& model, ThreadPool& pool) {
    const ModelWeights& w = model.weights();
    const MatrixView& unembedding = w.lmHead.weight;  // token width x vocab
    if (unembedding.empty() || w.tokenEmbedding.empty()) return std::nullopt;
    const MatrixView unembeddingT = unembedding.transposed();  // vocab x token width
    const int vocab = w.tokenEmbedding.rows, d = w.tokenEmbedding.cols;
    constexpr int kBlock = 2048;  // rows converted at a time: 2048 x width doubles per thread
    const int blocks = (vocab + kBlock - 1) / kBlock;
    std::vector<Eigen::MatrixXd> partial(pool.chunks(blocks), Eigen::MatrixXd::Zero(d, d));
    pool.parallelFor(blocks, [&](int chunk, int first, int last) {
        for (int b = first; b < last; ++b) {
            const int begin = b * kBlock, count = std::min(kBlock, vocab - begin);
            const Eigen::MatrixXd e = toDouble(w.tokenEmbedding.rowRange(begin, count));
            const Eigen::MatrixXd u = toDouble(unembeddingT.rowRange(begin, count));
            partial[chunk].noalias() += u.transpose() * e;
        }
    });
    Eigen::MatrixXd sum = Eigen::MatrixXd::Zero(d, d);
    for (const Eigen::MatrixXd& p : partial) sum += p;
    // Narrow token embeddings (OPT-350m) enter through project_in and leave through project_out:
    // the round trip through d_model is project_out · sum · project_in.
    if (!w.embeddingProjection.weight.empty())
        return toDouble(w.outputProjection.weight) * sum * toDouble(w.embeddingProjection.weight);
    return sum;
}

OvCircuit ovCircuit(const Eigen::Ref<const Eigen::MatrixXd>& value,
                    const Eigen::Ref<const Eigen::MatrixXd>& outputRows,
                    const Eigen::MatrixXd* roundTrip) {
    OvCircuit out;
    ProductSpectrum spectrum = productSpectrum(value, outputRows.transpose());
    out.singularValues = std::move(spectrum.singularValues);
    out.rank = spectrum.rank;
    if (roundTrip) out.copyingScore = eigenPositivity(outputRows * (*roundTrip) * value);
    return out;
}

}  // namespace qkv
