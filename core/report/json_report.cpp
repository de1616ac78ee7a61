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

namespace {

nlohmann::ordered_json numbersJson(const std::vector<double>& values) {
    nlohmann::ordered_json out = nlohmann::ordered_json::array();
    for (double v : values) out.push_back(jsonNumber(v));
    return out;
}

}  // namespace

nlohmann::ordered_json headMetricsJson(const HeadMetrics& head) {
    nlohmann::ordered_json out = {
        {"wqk_symmetry", jsonNumber(head.wqkSymmetry)},
        {"wqk_directionality", jsonNumber(head.wqkDirectionality)},
        {"wqk_rank", head.wqkRank},
        {"wqk_singular_values", numbersJson(head.wqkSingularValues)},
        {"eigen_positivity", jsonNumber(head.eigenPositivity)},
        {"qk_similarity", jsonNumber(head.qkSimilarity)},
        {"qv_similarity", jsonNumber(head.qvSimilarity)},
        {"kv_similarity", jsonNumber(head.kvSimilarity)},
    };
    if (head.scoreSymmetry) out["score_symmetry"] = jsonNumber(*head.scoreSymmetry);
    if (head.sinkShare) out["sink_share"] = jsonNumber(*head.sinkShare);
    out["ov_rank"] = head.ovRank;
    out["ov_singular_values"] = numbersJson(head.ovSingularValues);
    if (head.ovCopyingScore) out["ov_copying_score"] = jsonNumber(*head.ovCopyingScore);
    if (head.rotaryPart)
        out["rotary_part"] = {{"wqk_rank", head.rotaryPart->rank},
                              {"wqk_symmetry", jsonNumber(head.rotaryPart->symmetry)}};
    return out;
}

nlohmann::ordered_json metricsJson(const ModelMetrics& metrics) {
    nlohmann::ordered_json layers = nlohmann::ordered_json::array();
    for (const LayerMetrics& layer : metrics.layers) {
        nlohmann::ordered_json heads = nlohmann::ordered_json::array();
        for (const HeadMetrics& head : layer.heads) heads.push_back(headMetricsJson(head));
        layers.push_back({{"wqk_symmetry", jsonNumber(layer.wqkSymmetry)},
                          {"wqk_directionality", jsonNumber(layer.wqkDirectionality)},
                          {"heads", heads}});
    }
    return {{"median_layer_wqk_symmetry", jsonNumber(metrics.medianLayerWqkSymmetry)},
            {"median_layer_wqk_directionality", jsonNumber(metrics.medianLayerWqkDirectionality)},
            {"layers", layers}};
}

nlohmann::ordered_json traceJson(const AttentionTrace& trace, const CaptureSelection& selection,
                                 bool vectors) {
    const bool selected = selection.layer || selection.head;
    nlohmann::ordered_json layers = nlohmann::ordered_json::array();
    for (int l = 0; l < trace.layerCount(); ++l) {
        if (selection.layer && *selection.layer != l) continue;
        nlohmann::ordered_json heads = nlohmann::ordered_json::array();
        for (int h = 0; h < trace.headCount(); ++h) {
            if (!selection.includes(l, h)) continue;
            nlohmann::ordered_json head = nlohmann::ordered_json::object();
            if (selected) head["head"] = h;
            if (trace.hasProbabilities(l, h)) {
                head["attention"] = matrixJson(trace.probabilities(l, h));
                if (trace.hasSinks())
                    head["sink_share"] = numbersJson(sinkShares(trace.probabilities(l, h)));
            }
            if (trace.hasScores(l, h)) head["scores"] = matrixJson(trace.scores(l, h));
            if (vectors) {
                head["q"] = matrixJson(trace.query(l, h));
                head["k"] = matrixJson(trace.key(l, h));
                head["v"] = matrixJson(trace.value(l, h));
            }
            heads.push_back(std::move(head));
        }
        nlohmann::ordered_json layer = {{"heads", heads}};
        if (selected) layer["layer"] = l;
        layers.push_back(std::move(layer));
    }
    return layers;
}

}  // namespace qkv
