#pragma once
// What `train` and `experiment` share: the options of one training run (shape, corpus, steps,
// optimizer, threads), their parsing, and Ctrl+C handling for long runs.
#include <atomic>
#include <string>
#include <vector>

#include "app/cli/arguments.h"
#include "core/train/training_job.h"

namespace qkv::cli {

// --layers --heads --d-model --context --corpus --vocab --steps --batch --lr --eval-interval
// --threads, with `threadsHelp` for --threads.
std::vector<OptionSpec> trainingRunOptions(const std::string& threadsHelp);
// Those options into a job (tying, seed and folder left at their defaults); UsageError when one
// is out of range.
train::TrainingJob readTrainingRun(const Arguments& args);
// " --name value" for each option of `specs` given, in their order: the command line a log keeps.
std::string givenOptions(const Arguments& args, const std::vector<OptionSpec>& specs);

std::string formatDuration(double seconds);

// The first Ctrl+C raises the flag (the work stops after its current step); a second ends the
// process at once. Installed for the lifetime of this object.
class InterruptFlag {
  public:
    InterruptFlag();
    ~InterruptFlag();
    const std::atomic<bool>* flag() const;
};

}  // namespace qkv::cli
