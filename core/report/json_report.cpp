#include "core/report/json_report.h"

#include <cstdio>
#include <cstdlib>

namespace qkv {

double jsonNumber(double value) {
    char text[32];
    std::snprintf(text, sizeof text, "%.7g", value);
    return std::strtod(text, nullptr);
}

nlohmann::ordered_json matrixJson(const RowMatrixXf& m) {
    nlohmann::ordered_json rows = nlohmann::ordered_json::array();
    for (Eigen::Index r = 0; r < m.rows(); ++r) {
        nlohmann::ordered_json row = nlohmann::ordered_json::array();
        for (Eigen::Index c = 0; c < m.cols(); ++c) row.push_back(jsonNumber(m(r, c)));
        rows.push_back(std::move(row));
    }
    return rows;
}

nlohmann::ordered_json headMetricsJson(const HeadMetrics& head) {
    nlohmann::ordered_json singular = nlohmann::ordered_json::array();
    for (double s : head.wqkSingularValues) singular.push_back(jsonNumber(s));
    nlohmann::ordered_json out = {
        {"wqk_symmetry", jsonNumber(head.wqkSymmetry)},
        {"wqk_rank", head.wqkRank},
        {"wqk_singular_values", singular},
        {"eigen_positivity", jsonNumber(head.eigenPositivity)},
        {"qk_similarity", jsonNumber(head.qkSimilarity)},
        {"qv_similarity", jsonNumber(head.qvSimilarity)},
        {"kv_similarity", jsonNumber(head.kvSimilarity)},
    };
    if (head.scoreSymmetry) out["score_symmetry"] = jsonNumber(*head.scoreSymmetry);
    return out;
}

nlohmann::ordered_json metricsJson(const ModelMetrics& metrics) {
    nlohmann::ordered_json layers = nlohmann::ordered_json::array();
    for (const LayerMetrics& layer : metrics.layers) {
        nlohmann::ordered_json heads = nlohmann::ordered_json::array();
        for (const HeadMetrics& head : layer.heads) heads.push_back(headMetricsJson(head));
        layers.push_back({{"wqk_symmetry", jsonNumber(layer.wqkSymmetry)}, {"heads", heads}});
    }
    return {{"median_layer_wqk_symmetry", jsonNumber(metrics.medianLayerWqkSymmetry)},
            {"layers", layers}};
}

nlohmann::ordered_json traceJson(const AttentionTrace& trace, const CaptureSelection& selection) {
    const bool selected = selection.layer || selection.head;
    nlohmann::ordered_json layers = nlohmann::ordered_json::array();
    for (int l = 0; l < trace.layerCount(); ++l) {
        if (selection.layer && *selection.layer != l) continue;
        nlohmann::ordered_json heads = nlohmann::ordered_json::array();
        for (int h = 0; h < trace.headCount(); ++h) {
            if (!selection.includes(l, h)) continue;
            nlohmann::ordered_json head = nlohmann::ordered_json::object();
            if (selected) head["head"] = h;
            if (trace.hasProbabilities(l, h))
                head["attention"] = matrixJson(trace.probabilities(l, h));
            if (trace.hasScores(l, h)) head["scores"] = matrixJson(trace.scores(l, h));
            heads.push_back(std::move(head));
        }
        nlohmann::ordered_json layer = {{"heads", heads}};
        if (selected) layer["layer"] = l;
        layers.push_back(std::move(layer));
    }
    return layers;
}

}  // namespace qkv
