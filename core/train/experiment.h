#pragma once
// A multi-seed experiment: every variant trained for every seed, the same seed giving every
// variant the same initialisation stream and data order, each run's training_log.json kept
// (no weights) in DIR/<variant>/seed-<S>/, then DIR/summary.json (experiment_summary.h).
// Runs are single-threaded by default and several run at once, so the numbers do not depend on
// how many run together. A run whose finished log is already there with the same command is
// not trained again, so an interrupted experiment resumes where it stopped.
#include <atomic>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "core/train/experiment_summary.h"
#include "core/train/training_job.h"

namespace qkv::train {

struct ExperimentPlan {
    ExperimentLayout layout;
    TrainingJob run;  // the shape, steps and corpus of every run; tying, seed and folder are set
    std::filesystem::path outputDir;
    int parallelRuns = 1;
    std::string command;  // recorded in summary.json and every run's log
};

struct ExperimentRun {
    std::string variant;
    std::uint64_t seed = 0;
    bool reused = false;  // its finished log was already there
    double valLoss = 0;
    std::optional<double> relationAccuracy;
    double seconds = 0;
};

struct ExperimentCallbacks {
    std::function<void(const ExperimentRun& run, int done, int total)> onRunFinished;
    const std::atomic<bool>* cancel = nullptr;
};

struct ExperimentResult {
    nlohmann::ordered_json summary;
    bool cancelled = false;
};

// Throws qkv::Error when the folder cannot be written or a run fails (the other runs stop after
// their current step; finished runs stay on disk).
ExperimentResult runExperiment(const ExperimentPlan& plan, const ExperimentCallbacks& callbacks);

}  // namespace qkv::train
