#include "core/train/variant_metrics.h"

#include <Eigen/Dense>
#include <cmath>

namespace qkv::train {
namespace {

// Sum of squares of columns [first, first + count) of a row-major rows x cols block.
double columnBlockSquares(const float* block, int rows, int cols, int first, int count) {
    double sum = 0.0;
    for (int r = 0; r < rows; ++r)
        for (int c = first; c < first + count; ++c) {
            const double v = block[static_cast<std::size_t>(r) * cols + c];
            sum += v * v;
        }
    return sum;
}

}  // namespace

SlotGradientNorms slotGradientNorms(const ModelShape& shape, const ParameterLayout& layout,
                                    const std::vector<float>& grads) {
    const int d = shape.dModel, cols = shape.attentionColumns();
    const AttentionTying& t = shape.tying;
    double query = 0.0, key = 0.0;
    for (const auto& layer : layout.layers) {
        const float* g = grads.data() + layer.attnWeight;
        if (t.fullBilinear) {
            query += columnBlockSquares(g, d, cols, 0, shape.heads * d);
            continue;
        }
        query += columnBlockSquares(g, d, cols, t.slotSource[0] * d, d);
        key += columnBlockSquares(g, d, cols, t.slotSource[1] * d, d);
    }
    SlotGradientNorms norms{std::sqrt(query), std::nullopt};
    if (!t.fullBilinear) norms.key = std::sqrt(key);
    return norms;
}

BilinearRank bilinearRank(const ModelShape& shape, const ParameterLayout& layout,
                          const std::vector<float>& params) {
    const int d = shape.dModel, cols = shape.attentionColumns();
    BilinearRank rank;
    int count = 0;
    for (const auto& layer : layout.layers)
        for (int h = 0; h < shape.heads; ++h) {
            Eigen::MatrixXd w(d, d);
            for (int r = 0; r < d; ++r)
                for (int c = 0; c < d; ++c)
                    w(r, c) =
                        params[layer.attnWeight + static_cast<std::size_t>(r) * cols + h * d + c];
            const Eigen::VectorXd sigma = Eigen::JacobiSVD<Eigen::MatrixXd>(w).singularValues();
            const double total = sigma.sum();
            double entropy = 0.0;
            int numerical = 0;
            for (Eigen::Index i = 0; i < sigma.size(); ++i) {
                const double p = total > 0 ? sigma[i] / total : 0.0;
                if (p > 0) entropy -= p * std::log(p);
                numerical += sigma[i] > 1e-3 * sigma[0];
            }
            rank.effectiveRank += std::exp(entropy);
            rank.numericalRank += numerical;
            ++count;
        }
    if (count) {
        rank.effectiveRank /= count;
        rank.numericalRank /= count;
    }
    return rank;
}

}  // namespace qkv::train
