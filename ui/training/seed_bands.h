#pragma once
// One experiment variant's curves over its seeds: at every logged step, the mean and the
// min–max range of a value (validation loss, relation accuracy) over the seeds whose log has
// that step. The Training tab draws the mean as a line and the range as a shaded band.
#include <optional>
#include <vector>

#include "ui/training/experiment_folder.h"

namespace qkv::ui {

struct SeedBandPoint {
    int step = 0;
    double mean = 0;
    double min = 0;
    double max = 0;
    int seeds = 0;  // how many runs have this step
};

using SeedBand = std::vector<SeedBandPoint>;  // ascending steps

// A value of one log entry; nullopt where the entry does not carry it.
using PointValue = std::optional<double> (*)(const TrainingPoint&);
std::optional<double> validationLossOf(const TrainingPoint& point);
std::optional<double> relationAccuracyOf(const TrainingPoint& point);

// Over the variant's runs that have a log; empty when none carries the value.
SeedBand seedBand(const ExperimentVariant& variant, PointValue value);

}  // namespace qkv::ui
