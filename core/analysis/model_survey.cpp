#include "core/analysis/model_survey.h"

namespace qkv {

ModelSurvey surveyModel(const Model& model, const std::string& name, const AnalysisOptions& options,
                        const Progress& progress) {
    const ModelMetrics metrics =
        analyzeModel(model, WConfiguration{}, nullptr, nullptr, progress, options);
    ModelSurvey out;
    out.name = name;
    out.modelType = model.architecture().modelType;
    out.causal = model.architecture().causal;
    for (const LayerMetrics& layer : metrics.layers) {
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

}  // namespace qkv
