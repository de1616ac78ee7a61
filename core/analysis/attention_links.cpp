#include "core/analysis/attention_links.h"

#include <algorithm>
#include <cmath>

namespace qkv {

AttentionLinks strongestLinks(const RowMatrixXf& attention, std::size_t limit, float minWeight) {
    AttentionLinks out;
    for (Eigen::Index i = 0; i < attention.rows(); ++i)
        for (Eigen::Index j = 0; j < attention.cols(); ++j)
            if (std::abs(attention(i, j)) > minWeight)
                out.links.push_back({static_cast<int>(i), static_cast<int>(j), attention(i, j)});
    const auto stronger = [](const AttentionLink& a, const AttentionLink& b) {
        if (std::abs(a.weight) != std::abs(b.weight))
            return std::abs(a.weight) > std::abs(b.weight);
        return a.query != b.query ? a.query < b.query : a.key < b.key;
    };
    if (out.links.size() > limit) {
        std::nth_element(out.links.begin(), out.links.begin() + limit, out.links.end(), stronger);
        out.omitted = out.links.size() - limit;
        out.links.resize(limit);
    }
    std::sort(out.links.begin(), out.links.end(), stronger);
    return out;
}

}  // namespace qkv
