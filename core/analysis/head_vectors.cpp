#include "core/analysis/head_vectors.h"

#include <Eigen/Eigenvalues>
#include <cmath>
#include <string>

#include "core/analysis/matrix_metrics.h"
#include "core/util/error.h"

namespace qkv {
namespace {

void requireProbabilities(const AttentionTrace& trace, int layer, int head) {
    if (layer < 0 || layer >= trace.layerCount() || head < 0 || head >= trace.headCount(layer) ||
        !trace.hasProbabilities(layer, head))
        throw Error("layer " + std::to_string(layer) + " head " + std::to_string(head) +
                    " was not captured");
}

}  // namespace

double scoreScale(const Architecture& c, const WConfiguration& config) {
    if (config.scaleOutside) return 1.0;
    return c.attentionScale > 0 ? c.attentionScale : 1.0 / std::sqrt(double(c.headDim));
}

NeuronRow neuronRow(const AttentionTrace& trace, int layer, int head, int query, double scale) {
    requireProbabilities(trace, layer, head);
    if (query < 0 || query >= trace.tokens())
        throw Error("query token " + std::to_string(query) + " is outside the sentence (" +
                    std::to_string(trace.tokens()) + " tokens)");
    NeuronRow row;
    row.query = trace.query(layer, head).row(query).transpose().cast<double>();
    row.keys = trace.key(layer, head).cast<double>();
    row.products = row.keys.array().rowwise() * row.query.transpose().array();
    row.dots = row.products.rowwise().sum();
    row.scaled = row.dots * scale;
    if (trace.hasScores(layer, head))
        row.scores = trace.scores(layer, head).row(query).transpose().cast<double>();
    row.probabilities = trace.probabilities(layer, head).row(query).transpose().cast<double>();
    return row;
}

HeadSample headSample(const AttentionTrace& trace, int layer, int head) {
    requireProbabilities(trace, layer, head);
    HeadSample sample{
        trace.query(layer, head).cast<double>(), trace.key(layer, head).cast<double>(), {}};
    const RowMatrixXf& a = trace.probabilities(layer, head);
    for (Eigen::Index i = 0; i < a.rows(); ++i) {
        Eigen::Index best = 0;
        a.row(i).maxCoeff(&best);
        sample.attended.push_back(static_cast<int>(best));
    }
    return sample;
}

QueryKeyPlane queryKeyPlane(const AttentionTrace& trace, int layer, int head) {
    return queryKeyPlane(std::vector<HeadSample>{headSample(trace, layer, head)});
}

QueryKeyPlane queryKeyPlane(const std::vector<HeadSample>& samples) {
    if (samples.empty()) throw Error("a query/key plane needs at least one sentence");
    Eigen::Index queries = 0, keys = 0;
    for (const HeadSample& s : samples) {
        if (s.queries.cols() != samples.front().queries.cols() || s.keys.cols() != s.queries.cols())
            throw Error("the sentences' vectors have different widths");
        queries += s.queries.rows();
        keys += s.keys.rows();
    }
    Eigen::MatrixXd all(queries + keys, samples.front().queries.cols());
    QueryKeyPlane out;
    Eigen::Index q = 0, k = queries;
    for (const HeadSample& s : samples) {
        all.middleRows(q, s.queries.rows()) = s.queries;
        all.middleRows(k, s.keys.rows()) = s.keys;
        for (int j : s.attended) out.attended.push_back(static_cast<int>(k - queries) + j);
        out.queryCounts.push_back(static_cast<int>(s.queries.rows()));
        out.keyCounts.push_back(static_cast<int>(s.keys.rows()));
        q += s.queries.rows();
        k += s.keys.rows();
    }
    const Eigen::RowVectorXd mean = all.colwise().mean();
    all.rowwise() -= mean;
    // Principal axes: eigenvectors of the d_k x d_k scatter matrix, largest eigenvalues last.
    const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eigen(all.transpose() * all);
    const Eigen::Index d = all.cols();
    Eigen::MatrixX2d axes = Eigen::MatrixX2d::Zero(d, 2);
    for (Eigen::Index a = 0; a < std::min<Eigen::Index>(2, d); ++a)
        axes.col(a) = eigen.eigenvectors().col(d - 1 - a);
    const Eigen::MatrixX2d plane = all * axes;
    out.queries = plane.topRows(queries);
    out.keys = plane.bottomRows(keys);
    const double total = eigen.eigenvalues().sum();
    out.explained = total > 0 ? plane.squaredNorm() / total : 0.0;
    return out;
}

HeadOutputNorms headOutputNorms(const AttentionTrace& trace, int layer, int head,
                                const Eigen::MatrixXd& outputRows) {
    requireProbabilities(trace, layer, head);
    const Eigen::MatrixXd a = trace.probabilities(layer, head).cast<double>();
    const Eigen::MatrixXd v = trace.value(layer, head).cast<double>();
    if (outputRows.rows() != v.cols())
        throw Error("output rows of " + std::to_string(outputRows.rows()) +
                    " do not match the head's width " + std::to_string(v.cols()));
    const Eigen::MatrixXd written = v * outputRows;  // keys x d_model: what each token would add
    const Eigen::MatrixXd out = a * written;
    HeadOutputNorms norms;
    for (Eigen::Index i = 0; i < out.rows(); ++i) norms.written.push_back(out.row(i).norm());
    const Eigen::RowVectorXd received = a.colwise().sum();
    for (Eigen::Index j = 0; j < written.rows(); ++j)
        norms.source.push_back(received(j) * written.row(j).norm());
    return norms;
}

HeadOutputNorms headOutputNorms(const Model& model, const AttentionTrace& trace, int layer,
                                int head, AttentionKind kind) {
    return headOutputNorms(trace, layer, head, toDouble(headOutputRows(model, layer, head, kind)));
}

}  // namespace qkv
