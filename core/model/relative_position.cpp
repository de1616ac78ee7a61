#include "core/model/relative_position.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>

namespace qkv {

int relativePositionBucket(int offset, bool bidirectional, int buckets, int maxDistance) {
    int bucket = 0;
    int distance = offset;
    if (bidirectional) {
        buckets /= 2;
        if (offset > 0) bucket += buckets;
        distance = std::abs(offset);
    } else {
        distance = -std::min(offset, 0);
    }
    const int maxExact = buckets / 2;
    if (distance < maxExact) return bucket + distance;
    // float32 as torch computes it; the Python-side log of the distance ratio is a double.
    const float logRatio = std::log(static_cast<float>(distance) / static_cast<float>(maxExact));
    const float scale = static_cast<float>(std::log(static_cast<double>(maxDistance) / maxExact));
    const int large =
        maxExact + static_cast<int>(logRatio / scale * static_cast<float>(buckets - maxExact));
    return bucket + std::min(large, buckets - 1);
}

RowMatrixXf relativePositionBias(const MatrixView& table, int heads, int queries, int keys,
                                 bool bidirectional, int maxDistance) {
    RowMatrixXf bias(static_cast<Eigen::Index>(heads) * queries, keys);
    for (int i = 0; i < queries; ++i)
        for (int j = 0; j < keys; ++j) {
            const int bucket =
                relativePositionBucket(j - i, bidirectional, table.rows, maxDistance);
            for (int h = 0; h < heads; ++h)
                bias(static_cast<Eigen::Index>(h) * queries + i, j) = table.at(bucket, h);
        }
    return bias;
}

}  // namespace qkv
