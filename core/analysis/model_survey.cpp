#include "core/analysis/model_survey.h"

namespace qkv {

ModelSurvey surveyOf(const ModelMetrics& metrics) {
    ModelSurvey out;
    for (const LayerMetrics& layer : metrics.layers) {
        if (layer.heads.empty()) continue;  // no W_QK (NaN): a block without heads
        out.layerSymmetry.push_back(layer.wqkSymmetry);
        out.layerDirectionality.push_back(layer.wqkDirectionality);
        for (const HeadMetrics& head : layer.heads) {
            out.headSymmetry.push_back(head.wqkSymmetry);
            out.headDirectionality.push_back(head.wqkDirectionality);
            if (head.ovCopyingScore) out.headCopying.push_back(*head.ovCopyingScore);
        }
    }
    return out;
}

ModelSurvey surveyModel(const Model& model, const std::string& name, const AnalysisOptions& options,
                        const Progress& progress, const std::atomic<bool>* cancel) {
    ModelSurvey out =
        surveyOf(analyzeModel(model, WConfiguration{}, nullptr, cancel, progress, options));
    out.name = name;
    out.modelType = model.architecture().modelType;
    out.causal = model.architecture().causal;
    out.valueIsKeyLayers = model.architecture().valueIsKeyLayers();
    return out;
}

}  // namespace qkv
