#include "core/analysis/ov_circuit.h"

#include <Eigen/Eigenvalues>
#include <algorithm>
#include <cmath>
#include <string>

#include "core/util/error.h"

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

OvCircuit ovCircuit(const GramFactor& value, const Eigen::Ref<const Eigen::MatrixXd>& outputRows,
                    const Eigen::MatrixXd* roundTripValue) {
    if (value.matrix().cols() != outputRows.rows() || value.matrix().rows() != outputRows.cols())
        throw Error("OV circuit of a " + std::to_string(value.matrix().rows()) + " x " +
                    std::to_string(value.matrix().cols()) + " value weight and " +
                    std::to_string(outputRows.rows()) + " x " + std::to_string(outputRows.cols()) +
                    " output rows");
    // W_OV = Q_v R_v W_O^h has the singular values of R_v W_O^h (d_k x d_model): the square roots
    // of the eigenvalues of R_v (W_O^h W_O^h^T) R_v^T, d_k x d_k. Squaring costs precision only
    // below sqrt(eps) sigma_max (1.5e-8 of it), under the float32 weights' own 6e-8 per entry,
    // and spares a QR of W_O^h per head.
    Eigen::MatrixXd outputGram(outputRows.rows(), outputRows.rows());
    outputGram.noalias() = outputRows * outputRows.transpose();
    const Eigen::MatrixXd& r = value.r();
    const Eigen::MatrixXd squares = r * outputGram * r.transpose();
    const Eigen::VectorXd eigenvalues =
        Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(squares, Eigen::EigenvaluesOnly)
            .eigenvalues();  // ascending
    OvCircuit out;
    for (Eigen::Index i = eigenvalues.size() - 1; i >= 0; --i)
        out.singularValues.push_back(std::sqrt(std::max(eigenvalues(i), 0.0)));
    if (!out.singularValues.empty()) {
        const double cutoff = out.singularValues.front() *
                              rankTolerance(value.matrix().rows(), value.matrix().cols());
        for (double sigma : out.singularValues) out.rank += sigma > cutoff ? 1 : 0;
    }
    if (roundTripValue) out.copyingScore = eigenPositivity(outputRows * *roundTripValue);
    return out;
}

OvCircuit ovCircuit(const Eigen::Ref<const Eigen::MatrixXd>& value,
                    const Eigen::Ref<const Eigen::MatrixXd>& outputRows,
                    const Eigen::MatrixXd* roundTrip) {
    if (!roundTrip) return ovCircuit(GramFactor(value), outputRows, nullptr);
    const Eigen::MatrixXd roundTripValue = *roundTrip * value;
    return ovCircuit(GramFactor(value), outputRows, &roundTripValue);
}

}  // namespace qkv
