#pragma once
// A multi-seed experiment as `qkvlab-cli experiment` leaves it: DIR/summary.json (format
// "qkvlab-experiment", version 1: per variant its runs, the spread of the final values over
// seeds and the paired difference against the baseline variant) and one training_log.json per
// run, at the path the summary names relative to DIR. The summary lists a run whose log it could
// not read under "missing_runs" instead of under its variant: such a run is read here again.
#include <QString>
#include <QStringList>
#include <optional>
#include <vector>

#include "ui/training/training_run.h"

namespace qkv::ui {

constexpr int kExperimentFormatVersion = 1;

// A final value over the seeds; sd is the sample standard deviation (0 for one seed).
struct SeedSpread {
    double mean = 0;
    double sd = 0;
    double min = 0;
    double max = 0;
};

// Variant minus baseline, seed by seed, then averaged.
struct PairedDifference {
    double mean = 0;
    double sd = 0;
    bool exceedsSpread = false;  // the summary judges the difference larger than its spread
};

struct ExperimentRun {
    int seed = 0;
    QString logPath;  // absolute
    std::optional<double> valLoss;
    std::optional<double> relationAccuracy;
    std::optional<TrainingRun> run;  // nullopt: the log is missing or unreadable (error says why)
    QString error;
};

struct ExperimentVariant {
    QString name;  // the attention variant, e.g. "shared-qk"
    long long parameters = 0;
    std::vector<ExperimentRun> runs;
    std::optional<SeedSpread> valLoss;
    std::optional<SeedSpread> relationAccuracy;
    std::optional<PairedDifference> valLossVsBaseline;  // absent on the baseline
    std::optional<PairedDifference> relationAccuracyVsBaseline;
};

struct ExperimentFolder {
    QString folder;  // absolute
    QString command;
    std::vector<int> seeds;
    int steps = 0;
    QString baseline;
    std::vector<ExperimentVariant> variants;

    int loadedRuns() const;
    QStringList runErrors() const;  // "variant, seed S: why" for each run whose log is missing
};

// Reads FOLDER/summary.json and every run's log. Throws qkv::Error with a message for a person
// when the summary is missing, not JSON, not an experiment summary, newer than this reader or
// malformed; a missing or broken run log is only recorded on that run.
ExperimentFolder readExperimentFolder(const QString& folder);

}  // namespace qkv::ui
