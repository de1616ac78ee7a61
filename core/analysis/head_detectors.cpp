#include "core/analysis/head_detectors.h"

#include <cmath>
#include <string>

#include "core/analysis/matrix_metrics.h"
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

const char* headScoreName(HeadScore score) {
    switch (score) {
        case HeadScore::PreviousToken:
            return "previous_token";
        case HeadScore::DuplicateToken:
            return "duplicate_token";
        case HeadScore::Induction:
            return "induction";
        case HeadScore::FirstToken:
            return "first_token";
        case HeadScore::Self:
            return "self";
        case HeadScore::Entropy:
            return "entropy";
        case HeadScore::Distance:
            return "distance";
        case HeadScore::ScoreSymmetry:
            return "score_symmetry";
        case HeadScore::Directionality:
            return "directionality";
    }
    return "?";
}

std::optional<double> HeadSentenceScores::value(HeadScore score) const {
    switch (score) {
        case HeadScore::PreviousToken:
            return previousToken;
        case HeadScore::DuplicateToken:
            return duplicateToken;
        case HeadScore::Induction:
            return induction;
        case HeadScore::FirstToken:
            return firstToken;
        case HeadScore::Self:
            return self;
        case HeadScore::Entropy:
            return entropy;
        case HeadScore::Distance:
            return distance;
        case HeadScore::ScoreSymmetry:
            return scoreSymmetry;
        case HeadScore::Directionality:
            return directionality;
    }
    return std::nullopt;
}

namespace {

void requireSquareOver(const RowMatrixXf& map, const std::vector<int>& ids) {
    if (map.rows() != static_cast<Eigen::Index>(ids.size()) || map.cols() != map.rows())
        throw Error("a detector score needs a square map over the sentence's " +
                    std::to_string(ids.size()) + " tokens, not " + std::to_string(map.rows()) +
                    " x " + std::to_string(map.cols()));
}

double rowMass(const RowMatrixXf& map, Eigen::Index i) {
    double mass = 0.0;
    for (Eigen::Index j = 0; j < map.cols(); ++j) mass += std::abs(static_cast<double>(map(i, j)));
    return mass;
}

// Keeps the larger of a peak and row i's value (the earlier row of equals).
void raise(ScorePeak& peak, int query, double value) {
    if (peak.query < 0 || value > peak.value) peak = {query, value};
}

}  // namespace

double detectorScore(const RowMatrixXf& map, const std::vector<int>& ids, HeadPattern pattern) {
    requireSquareOver(map, ids);
    double on = 0.0, all = 0.0;
    for (int i = 0; i < map.rows(); ++i)
        for (int j = 0; j < map.cols(); ++j) {
            const double a = std::abs(static_cast<double>(map(i, j)));
            all += a;
            if (inPattern(pattern, ids, i, j)) on += a;
        }
    return all > 0.0 ? on / all : 0.0;
}

HeadSentenceScores scoreHeadOnSentence(const RowMatrixXf& map, const RowMatrixXf& form,
                                       const std::vector<int>& ids) {
    requireSquareOver(map, ids);
    HeadSentenceScores s;
    // One walk per row: its mass, then its five pattern masses, entropy and distance. The
    // sentence's shares are the rows' masses summed over the whole mass.
    std::array<double, 5> on{};  // previous, duplicate, induction, first, self
    double all = 0.0, entropy = 0.0, distance = 0.0;
    int rows = 0;
    for (int i = 0; i < map.rows(); ++i) {
        const double mass = rowMass(map, i);
        if (mass <= 0.0) continue;
        std::array<double, 5> row{};
        double rowEntropy = 0.0, far = 0.0;
        for (int j = 0; j < map.cols(); ++j) {
            const double a = std::abs(static_cast<double>(map(i, j)));
            if (a == 0.0) continue;
            const double p = a / mass;
            rowEntropy -= p * std::log(p);
            far += a * std::abs(i - j);
            if (j > i) continue;
            row[0] += inPattern(HeadPattern::PreviousToken, ids, i, j) ? a : 0.0;
            row[1] += inPattern(HeadPattern::DuplicateToken, ids, i, j) ? a : 0.0;
            row[2] += inPattern(HeadPattern::Induction, ids, i, j) ? a : 0.0;
            row[3] += j == 0 ? a : 0.0;
            row[4] += j == i ? a : 0.0;
        }
        all += mass;
        for (int k = 0; k < 5; ++k) on[k] += row[k];
        entropy += rowEntropy;
        distance += far / mass;
        ++rows;
        if (i < kFirstExampleQuery) continue;
        for (int k = 0; k < 5; ++k) raise(s.peaks[k], i, row[k] / mass);
        raise(s.peaks[static_cast<int>(HeadScore::Entropy)], i, rowEntropy);
        raise(s.peaks[static_cast<int>(HeadScore::Distance)], i, far / mass);
    }
    auto share = [&](double mass) { return all > 0.0 ? mass / all : 0.0; };
    s.previousToken = share(on[0]);
    s.duplicateToken = share(on[1]);
    s.induction = share(on[2]);
    s.firstToken = share(on[3]);
    s.self = share(on[4]);
    s.entropy = rows > 0 ? entropy / rows : 0.0;
    s.distance = rows > 0 ? distance / rows : 0.0;
    if (form.rows() == form.cols() && form.rows() > 0) {
        const Eigen::MatrixXd m = form.cast<double>();
        s.scoreSymmetry = symmetryScore(m);
        s.directionality = directionality(m);
    }
    return s;
}

RowChange rowChange(const RowMatrixXf& learned, const RowMatrixXf& other) {
    if (learned.rows() != other.rows() || learned.cols() != other.cols())
        throw Error("a change of a head's rows needs maps of one shape, not " +
                    std::to_string(learned.rows()) + " x " + std::to_string(learned.cols()) +
                    " and " + std::to_string(other.rows()) + " x " + std::to_string(other.cols()));
    RowChange change;
    double sum = 0.0;
    int rows = 0;
    for (int i = 0; i < learned.rows(); ++i) {
        const double p = rowMass(learned, i), q = rowMass(other, i);
        if (p <= 0.0 || q <= 0.0) continue;
        double variation = 0.0;
        for (int j = 0; j < learned.cols(); ++j)
            variation += std::abs(std::abs(static_cast<double>(learned(i, j))) / p -
                                  std::abs(static_cast<double>(other(i, j))) / q);
        variation /= 2;
        sum += variation;
        ++rows;
        raise(change.peak, i, variation);
    }
    change.mean = rows > 0 ? sum / rows : 0.0;
    return change;
}

}  // namespace qkv
