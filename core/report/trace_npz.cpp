#include "core/report/trace_npz.h"

#include "core/analysis/head_metrics.h"

namespace qkv {

std::vector<std::string> addTraceArrays(NpzWriter& npz, const std::string& prefix,
                                        const AttentionTrace& trace,
                                        const CaptureSelection& selection, bool vectors,
                                        std::deque<std::vector<float>>& owned) {
    std::vector<std::string> names;
    auto add = [&](const std::string& name, const float* data, std::vector<std::int64_t> shape) {
        npz.addFloat32(name, data, std::move(shape));
        names.push_back(name);
    };
    for (int l = 0; l < trace.layerCount(); ++l)
        for (int h = 0; h < trace.headCount(l); ++h) {
            if (!selection.includes(l, h)) continue;
            const std::string head =
                prefix + "layer" + std::to_string(l) + "_head" + std::to_string(h) + "_";
            if (trace.hasProbabilities(l, h)) {
                const RowMatrixXf& a = trace.probabilities(l, h);
                add(head + "attention", a.data(), {a.rows(), a.cols()});
                if (trace.hasSinks()) {
                    const std::vector<double> shares = sinkShares(a);
                    const auto& copy = owned.emplace_back(shares.begin(), shares.end());
                    add(head + "sink_share", copy.data(), {static_cast<std::int64_t>(copy.size())});
                }
            }
            if (trace.hasScores(l, h)) {
                const RowMatrixXf& s = trace.scores(l, h);
                add(head + "scores", s.data(), {s.rows(), s.cols()});
            }
            if (!vectors) continue;
            for (const auto& [slot, rows] :
                 {std::pair{"q", trace.query(l, h)}, std::pair{"k", trace.key(l, h)},
                  std::pair{"v", trace.value(l, h)}}) {
                std::vector<float>& copy = owned.emplace_back(rows.size());
                Eigen::Map<RowMatrixXf>(copy.data(), rows.rows(), rows.cols()) = rows;
                add(head + slot, copy.data(), {rows.rows(), rows.cols()});
            }
        }
    return names;
}

}  // namespace qkv
