#include "core/analysis/head_detectors.h"

#include <cmath>
#include <string>

#include "core/analysis/matrix_metrics.h"
#include "core/analysis/trace_rows.h"
#include "core/util/error.h"

namespace qkv {

bool inPattern(HeadPattern pattern, const std::vector<int>& ids, int query, int key) {
    if (key > query) return false;
    switch (pattern) {
        case HeadPattern::PreviousToken:
            return key == query - 1;
        case HeadPattern::DuplicateToken:
            return key < query && ids[key] == ids[query];
        case HeadPattern::Induction:
            return key >= 1 && ids[key - 1] == ids[query];
    }
    return false;
}

namespace {

// Σ |A_ij| over the cells `keep` accepts, over Σ |A_ij|; 0 without mass. Sums in double.
template <class Keep>
double massShare(const RowMatrixXf& map, Keep keep) {
    double on = 0.0, all = 0.0;
    for (Eigen::Index i = 0; i < map.rows(); ++i)
        for (Eigen::Index j = 0; j < map.cols(); ++j) {
            const double a = std::abs(static_cast<double>(map(i, j)));
            all += a;
            if (keep(static_cast<int>(i), static_cast<int>(j))) on += a;
        }
    return all > 0.0 ? on / all : 0.0;
}

// The mean over rows with mass of the entropy of |A_i·| / Σ|A_i·| (0 · ln 0 = 0).
double meanEntropy(const RowMatrixXf& map) {
    double total = 0.0;
    int rows = 0;
    for (Eigen::Index i = 0; i < map.rows(); ++i) {
        const double mass = map.row(i).cast<double>().cwiseAbs().sum();
        if (mass <= 0.0) continue;
        double entropy = 0.0;
        for (Eigen::Index j = 0; j < map.cols(); ++j) {
            const double p = std::abs(static_cast<double>(map(i, j))) / mass;
            if (p > 0.0) entropy -= p * std::log(p);
        }
        total += entropy;
        ++rows;
    }
    return rows > 0 ? total / rows : 0.0;
}

}  // namespace

void requireSquareOver(const RowMatrixXf& map, const std::vector<int>& ids) {
    if (map.rows() != static_cast<Eigen::Index>(ids.size()) || map.cols() != map.rows())
        throw Error("a detector score needs a square map over the sentence's " +
                    std::to_string(ids.size()) + " tokens, not " + std::to_string(map.rows()) +
                    " x " + std::to_string(map.cols()));
}

double detectorScore(const RowMatrixXf& map, const std::vector<int>& ids, HeadPattern pattern) {
    requireSquareOver(map, ids);
    return massShare(map, [&](int i, int j) { return inPattern(pattern, ids, i, j); });
}

HeadSentenceScores scoreHeadOnSentence(const RowMatrixXf& map, const RowMatrixXf& form,
                                       const std::vector<int>& ids) {
    requireSquareOver(map, ids);
    // The five shares in one walk over the map: the same terms in the same order as massShare's
    // walk for each, so the same sums.
    double all = 0.0, previous = 0.0, duplicate = 0.0, induction = 0.0, first = 0.0, self = 0.0;
    for (int i = 0; i < map.rows(); ++i)
        for (int j = 0; j <= i && j < map.cols(); ++j) {
            const double a = std::abs(static_cast<double>(map(i, j)));
            previous += inPattern(HeadPattern::PreviousToken, ids, i, j) ? a : 0.0;
            duplicate += inPattern(HeadPattern::DuplicateToken, ids, i, j) ? a : 0.0;
            induction += inPattern(HeadPattern::Induction, ids, i, j) ? a : 0.0;
            first += j == 0 ? a : 0.0;
            self += j == i ? a : 0.0;
        }
    for (Eigen::Index i = 0; i < map.rows(); ++i)
        for (Eigen::Index j = 0; j < map.cols(); ++j)
            all += std::abs(static_cast<double>(map(i, j)));
    auto share = [&](double on) { return all > 0.0 ? on / all : 0.0; };
    HeadSentenceScores s;
    s.previousToken = share(previous);
    s.duplicateToken = share(duplicate);
    s.induction = share(induction);
    s.firstToken = share(first);
    s.self = share(self);
    s.entropy = meanEntropy(map);
    if (const auto reach = attentionReach(map)) s.distance = reach->meanDistance;
    if (form.rows() == form.cols() && form.rows() > 0) {
        const Eigen::MatrixXd m = form.cast<double>();
        s.scoreSymmetry = symmetryScore(m);
        s.directionality = directionality(m);
    }
    return s;
}

}  // namespace qkv
