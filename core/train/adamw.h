#pragma once
// AdamW (decoupled weight decay, on matrices only) with global gradient-norm clipping, and the
// learning-rate schedule: linear warmup, then cosine decay to a floor.
#include <vector>

#include "core/train/parameters.h"

namespace qkv::train {

struct OptimizerSettings {
    double learningRate = 6e-3;  // peak
    double finalLearningRate = 6e-4;
    int warmupSteps = 100;
    int totalSteps = 1000;
    double beta1 = 0.9;
    double beta2 = 0.95;
    double epsilon = 1e-8;
    double weightDecay = 0.1;
    double clipNorm = 1.0;  // 0: no clipping
};

// The learning rate of step `step` (0-based).
double learningRateAt(const OptimizerSettings& settings, int step);

class AdamW {
  public:
    AdamW(const ParameterLayout& layout, const OptimizerSettings& settings);

    // One update of params from grads (grads are scaled in place when clipped); returns the
    // gradient norm before clipping.
    double step(std::vector<float>& params, std::vector<float>& grads, int stepIndex);

  private:
    const ParameterLayout& m_layout;
    OptimizerSettings m_settings;
    std::vector<float> m_m, m_v;
};

}  // namespace qkv::train
