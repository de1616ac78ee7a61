#include "core/train/adamw.h"

#include <algorithm>
#include <cmath>

namespace qkv::train {

double learningRateAt(const OptimizerSettings& s, int step) {
    if (step < s.warmupSteps) return s.learningRate * (step + 1) / s.warmupSteps;
    const int decaySteps = std::max(1, s.totalSteps - s.warmupSteps);
    const double progress = std::min(1.0, static_cast<double>(step - s.warmupSteps) / decaySteps);
    constexpr double kPi = 3.141592653589793;
    return s.finalLearningRate +
           0.5 * (s.learningRate - s.finalLearningRate) * (1.0 + std::cos(kPi * progress));
}

AdamW::AdamW(const ParameterLayout& layout, const OptimizerSettings& settings)
    : m_layout(layout), m_settings(settings), m_m(layout.size(), 0.0f), m_v(layout.size(), 0.0f) {}

double AdamW::step(std::vector<float>& params, std::vector<float>& grads, int stepIndex) {
    const OptimizerSettings& s = m_settings;
    double sumSquares = 0.0;
    for (float g : grads) sumSquares += static_cast<double>(g) * g;
    const double norm = std::sqrt(sumSquares);
    const float clip =
        s.clipNorm > 0 && norm > s.clipNorm ? static_cast<float>(s.clipNorm / norm) : 1.0f;

    const double lr = learningRateAt(s, stepIndex);
    const double correction1 = 1.0 - std::pow(s.beta1, stepIndex + 1);
    const double correction2 = 1.0 - std::pow(s.beta2, stepIndex + 1);
    const float b1 = static_cast<float>(s.beta1), b2 = static_cast<float>(s.beta2);
    const float stepSize = static_cast<float>(lr / correction1);
    const float rootCorrection2 = static_cast<float>(std::sqrt(correction2));
    const float eps = static_cast<float>(s.epsilon);
    for (const ParameterTensor& t : m_layout.tensors()) {
        const float decay = t.decay ? static_cast<float>(1.0 - lr * s.weightDecay) : 1.0f;
        float* p = params.data() + t.offset;
        float* g = grads.data() + t.offset;
        float* m = m_m.data() + t.offset;
        float* v = m_v.data() + t.offset;
        for (std::size_t i = 0; i < t.size(); ++i) {
            const float gi = g[i] * clip;
            m[i] = b1 * m[i] + (1 - b1) * gi;
            v[i] = b2 * v[i] + (1 - b2) * gi * gi;
            p[i] = p[i] * decay - stepSize * m[i] / (std::sqrt(v[i]) / rootCorrection2 + eps);
        }
    }
    return norm;
}

}  // namespace qkv::train
