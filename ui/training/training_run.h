#pragma once
// One training run as `qkvlab-cli train` leaves it in its model folder (docs/training.md):
// training_log.json (a validation entry every eval-interval steps, the final values) and, for the
// shipped models, evaluation.json. A run that is still training or was interrupted has no
// "final" entry yet: its last validation entry stands in for it. Newer logs start with an entry
// at step 0 (the untrained model) and may carry the directed-relations probe's accuracy.
#include <QString>
#include <optional>
#include <vector>

namespace qkv::ui {

struct TrainingPoint {
    int step = 0;
    double trainLoss = 0;  // mean training loss since the previous entry; NaN when absent (step 0)
    double valLoss = 0;    // mean next-token cross-entropy over the validation split (nats)
    double tokensPerSecond = 0;
    std::optional<double> relationAccuracy;  // the directed-relations probe, in [0, 1]
};

struct TrainingRun {
    QString attention;  // the log's config.attention: "learned", "shared-qk", ...
    std::vector<TrainingPoint> points;
    int completedSteps = 0;
    int plannedSteps = 0;
    bool finished = false;
    double finalTrainLoss = 0;
    double finalValLoss = 0;
    double perplexity = 0;  // exp(final validation loss)
    long long parameters = 0;
    double tokensPerSecond = 0;            // over the whole run
    std::optional<double> evaluationLoss;  // evaluation.json, when present
};

// Reads FOLDER/training_log.json (and evaluation.json). nullopt when the folder has no log;
// throws qkv::Error naming the file when it is there but unreadable.
std::optional<TrainingRun> readTrainingRun(const QString& folder);
// Reads one training_log.json at PATH; throws qkv::Error naming the file when it is missing or
// unreadable.
TrainingRun readTrainingLog(const QString& path);

}  // namespace qkv::ui
