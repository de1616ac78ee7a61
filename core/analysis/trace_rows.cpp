#include "core/analysis/trace_rows.h"

#include <cmath>
#include <string>

#include "core/util/error.h"

namespace qkv {

std::vector<double> sinkShares(const RowMatrixXf& probabilities) {
    std::vector<double> shares(probabilities.rows());
    for (Eigen::Index i = 0; i < probabilities.rows(); ++i)
        shares[i] = sinkShareOfRow(probabilities, static_cast<int>(i));
    return shares;
}

double sinkShareOfRow(const RowMatrixXf& probabilities, int row) {
    return 1.0 - probabilities.row(row).cast<double>().sum();
}

std::optional<AttentionReach> attentionReach(const RowMatrixXf& map) {
    if (map.rows() != map.cols()) return std::nullopt;
    double distance = 0, self = 0;
    int rows = 0;
    for (Eigen::Index i = 0; i < map.rows(); ++i) {
        double total = 0, far = 0;
        for (Eigen::Index j = 0; j < map.cols(); ++j) {
            const double weight = std::abs(static_cast<double>(map(i, j)));
            total += weight;
            far += weight * static_cast<double>(std::abs(i - j));
        }
        if (total == 0) continue;
        distance += far / total;
        self += std::abs(static_cast<double>(map(i, i))) / total;
        ++rows;
    }
    if (rows == 0) return std::nullopt;
    return AttentionReach{distance / rows, self / rows};
}

TokenPairSimilarity tokenPairSimilarity(const AttentionTrace& trace, int layer, int head, int i,
                                        int j) {
    const int n = trace.keyTokens();
    if (layer < 0 || layer >= trace.layerCount() || head < 0 || head >= trace.headCount(layer) ||
        i < 0 || i >= n || j < 0 || j >= n)
        throw Error("token pair (" + std::to_string(i) + ", " + std::to_string(j) + ") of layer " +
                    std::to_string(layer) + " head " + std::to_string(head) +
                    " is outside the trace (" + std::to_string(n) + " tokens)");
    auto cosine = [&](const ConstMatrixMap& m) {
        const Eigen::VectorXd a = m.row(i).transpose().cast<double>();
        const Eigen::VectorXd b = m.row(j).transpose().cast<double>();
        const double norms = a.norm() * b.norm();
        return norms > 0 ? a.dot(b) / norms : 0.0;
    };
    return {cosine(trace.key(layer, head)), cosine(trace.value(layer, head))};
}

}  // namespace qkv
