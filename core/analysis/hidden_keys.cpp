#include "core/analysis/hidden_keys.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/model/key_indexer.h"
#include "core/util/error.h"

namespace qkv {

HiddenKeys whatTheMaskHides(const RowMatrixXf& scores, const RowMatrixXf& probabilities,
                            const KeyMask& mask, bool maskSelf, bool sink,
                            const std::vector<std::vector<int>>* selected) {
    if (scores.rows() != probabilities.rows() || scores.cols() != probabilities.cols())
        throw Error("internal error: scores and probabilities of different shapes");
    if (selected && static_cast<Eigen::Index>(selected->size()) != scores.rows())
        throw Error("internal error: kept keys for another number of queries");
    const int queries = static_cast<int>(scores.rows()), keys = static_cast<int>(scores.cols());
    const KeyMask lifted{mask.causal};  // causality only
    HiddenKeys out{RowMatrixXf::Zero(queries, keys), std::vector<double>(queries, 0.0)};
    for (int i = 0; i < queries; ++i) {
        // The keys each mask shows, less the diagonal where mask-self removes it (Reformer's
        // rule: unless nothing else is visible).
        auto shown = [&](const KeyMask& m, int j) {
            const int first = m.firstVisible(i), last = m.lastVisible(i, keys);
            return !m.hides(i, j) && !(maskSelf && j == i && last > first);
        };
        // What the model showed: the mask's keys, of them only those its indexer kept.
        auto kept = [&](int j) { return shown(mask, j) && (!selected || keeps(*selected, i, j)); };
        // (A key the mask shows may be one the lifted mask hides: the diagonal, which mask-self
        // keeps only where nothing else is visible.)
        double top = -std::numeric_limits<double>::infinity();
        for (int j = 0; j < keys; ++j)
            if (shown(lifted, j) || kept(j)) top = std::max(top, static_cast<double>(scores(i, j)));
        double zShown = 0.0, zDense = 0.0, pShown = 0.0;
        for (int j = 0; j < keys; ++j) {
            const double e = std::exp(scores(i, j) - top);
            if (shown(lifted, j)) zDense += e;
            if (kept(j)) {
                zShown += e;
                pShown += probabilities(i, j);
            }
        }
        if (zShown <= 0.0 || pShown <= 0.0) continue;  // nothing shown: nothing to compare
        // The model's row is c·e_j on the shown keys, c = scale / (Z_shown + E) with E the sink's
        // term; without a sink scale = Σ p (E = 0), with one the scale is 1 and E follows.
        const double sinkTerm = sink ? zShown * (1.0 - pShown) / pShown : 0.0;
        const double scale = sink ? 1.0 : pShown;
        const double c = scale / (zDense + sinkTerm);
        for (int j = 0; j < keys; ++j) {
            if (!shown(lifted, j)) continue;
            const double p = c * std::exp(scores(i, j) - top);
            out.dense(i, j) = static_cast<float>(p);
            if (!kept(j)) out.dropped[i] += p;
        }
    }
    return out;
}

std::optional<double> indexerAgreement(const RowMatrixXf& scores,
                                       const std::vector<std::vector<int>>& selected) {
    if (static_cast<Eigen::Index>(selected.size()) != scores.rows())
        throw Error("internal error: kept keys for another number of queries");
    if (selected.empty()) return std::nullopt;
    const int k = static_cast<int>(selected.back().size());
    const std::vector<std::vector<int>> best = topKeys(scores, k);
    double sum = 0.0;
    int counted = 0;
    for (int i = k; i < static_cast<int>(selected.size()); ++i) {  // queries with > k keys
        std::vector<int> shared;
        std::set_intersection(selected[i].begin(), selected[i].end(), best[i].begin(),
                              best[i].end(), std::back_inserter(shared));
        sum += static_cast<double>(shared.size()) / k;
        ++counted;
    }
    if (counted == 0) return std::nullopt;
    return sum / counted;
}

}  // namespace qkv
