#pragma once
// The survey's figure: for each model a box of its layers' W_QK symmetry and one of their
// directionality (two panels, one above the other; models side by side), encoders and decoders in
// two colours, so Saponati et al.'s finding — encoders more symmetric than decoders — shows at a
// glance.
#include <vector>

#include "core/analysis/model_survey.h"

class QCustomPlot;

namespace qkv::ui {

void drawSurveyFigure(QCustomPlot* plot, const std::vector<ModelSurvey>& surveys);

}  // namespace qkv::ui
