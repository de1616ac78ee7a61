#include "ui/training/seed_bands.h"

#include <algorithm>
#include <map>

namespace qkv::ui {

std::optional<double> validationLossOf(const TrainingPoint& point) { return point.valLoss; }

std::optional<double> relationAccuracyOf(const TrainingPoint& point) {
    return point.relationAccuracy;
}

SeedBand seedBand(const ExperimentVariant& variant, PointValue value) {
    std::map<int, std::vector<double>> byStep;
    for (const ExperimentRun& run : variant.runs) {
        if (!run.run) continue;
        for (const TrainingPoint& point : run.run->points)
            if (const auto v = value(point)) byStep[point.step].push_back(*v);
    }
    SeedBand band;
    for (const auto& [step, values] : byStep) {
        SeedBandPoint p;
        p.step = step;
        p.seeds = static_cast<int>(values.size());
        double sum = 0;
        for (double v : values) sum += v;
        p.mean = sum / p.seeds;
        const auto [low, high] = std::minmax_element(values.begin(), values.end());
        p.min = *low;
        p.max = *high;
        band.push_back(p);
    }
    return band;
}

}  // namespace qkv::ui
