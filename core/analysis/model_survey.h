#pragma once
// A survey of models (Saponati et al. 2025's table): per model the layer-level and head-level
// W_QK symmetry and directionality and the heads' OV copying scores, with their medians. One
// model is analysed at a time and only these lists are kept, so a list of models runs in the
// memory of the largest one.
#include <optional>
#include <string>
#include <vector>

#include "core/analysis/head_metrics.h"

namespace qkv {

struct ModelSurvey {
    std::string name;       // what the user gave: a folder or a Hub id
    std::string modelType;  // config.json's model_type
    bool causal = true;     // decoder (causal) or encoder (bidirectional) self-attention
    std::vector<double> layerSymmetry, layerDirectionality;  // one per layer
    std::vector<double> headSymmetry, headDirectionality;    // one per head, layer by layer
    std::vector<double> headCopying;                         // empty without an output head
    int valueIsKeyLayers = 0;  // layers whose W_V is W_K by design (Gemma 4's global layers)

    double medianLayerSymmetry() const { return median(layerSymmetry); }
    double medianLayerDirectionality() const { return median(layerDirectionality); }
    double medianHeadSymmetry() const { return median(headSymmetry); }
    double medianHeadDirectionality() const { return median(headDirectionality); }
    std::optional<double> medianCopying() const {
        return headCopying.empty() ? std::nullopt : std::optional(median(headCopying));
    }
};

// The lists of a model's metrics (name, type and attention left as they are).
ModelSurvey surveyOf(const ModelMetrics& metrics);

// The learned weights' metrics of the model's (encoder's) self-attention; `cancel` stops the
// analysis between layers (qkv::Cancelled).
ModelSurvey surveyModel(const Model& model, const std::string& name,
                        const AnalysisOptions& options = {}, const Progress& progress = {},
                        const std::atomic<bool>* cancel = nullptr);

}  // namespace qkv
