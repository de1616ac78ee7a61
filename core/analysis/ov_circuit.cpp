#include "core/analysis/ov_circuit.h"

#include <Eigen/Eigenvalues>
#include <algorithm>
#include <cmath>
#include <mutex>
#include <string>

#include "core/util/error.h"

namespace qkv {
namespace {

using FloatRows = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

// `count` rows of `v` from `first`, each stored value widened to float32 (exactly: every stored
// type is a subset of float32).
FloatRows floatRows(const MatrixView& v, int first, int count) {
    const MatrixView rows = v.rowRange(first, count);
    FloatRows out(count, rows.cols);
    for (int r = 0; r < count; ++r) {
        if (rows.colStride == 1) {
            rows.widenRun(r * rows.rowStride, static_cast<std::size_t>(rows.cols),
                          out.row(r).data());
        } else {
            for (int c = 0; c < rows.cols; ++c) out(r, c) = rows.at(r, c);
        }
    }
    return out;
}

}  // namespace

std::optional<Eigen::MatrixXd> vocabularyRoundTrip(const Model& model, ThreadPool& pool,
                                                   const Progress& progress,
                                                   const std::atomic<bool>* cancel) {
    const ModelWeights& w = model.weights();
    const MatrixView& unembedding = w.lmHead.weight;  // token width x vocab
    if (unembedding.empty() || w.tokenEmbedding.empty()) return std::nullopt;
    const MatrixView unembeddingT = unembedding.transposed();  // vocab x token width
    const int vocab = w.tokenEmbedding.rows, d = w.tokenEmbedding.cols;
    // Each block of vocabulary rows is multiplied in float32 (SGEMM, over twice DGEMM's rate) and
    // added to a double sum. The stored weights are float32 or narrower, so the products are
    // exact and only a block's own sum rounds: on a Llama-3-8B-shaped model the result is within
    // 1.4e-7 of its largest entry of the all-double product and the copying scores within 3e-9
    // (docs/benchmark.md); a test bounds the error.
    constexpr int kBlock = 2048;
    const int blocks = (vocab + kBlock - 1) / kBlock;
    std::vector<Eigen::MatrixXd> partial(pool.chunks(blocks), Eigen::MatrixXd::Zero(d, d));
    std::mutex reporting;
    int done = 0;
    pool.parallelFor(blocks, [&](int chunk, int first, int last) {
        Eigen::MatrixXf product(d, d);
        for (int b = first; b < last; ++b) {
            if (cancel && cancel->load()) return;
            const int begin = b * kBlock, count = std::min(kBlock, vocab - begin);
            const FloatRows e = floatRows(w.tokenEmbedding, begin, count);
            const FloatRows u = floatRows(unembeddingT, begin, count);
            product.noalias() = u.transpose() * e;
            partial[chunk] += product.cast<double>();
            if (progress) {
                const std::lock_guard<std::mutex> lock(reporting);
                progress(++done, blocks);
            }
        }
    });
    if (cancel && cancel->load()) throw Cancelled();
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
