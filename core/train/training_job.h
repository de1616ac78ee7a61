#pragma once
// One `train` run from text to a model folder: corpus -> byte-level BPE trained on the training
// documents -> token streams (ids from the saved tokenizer itself, as loadTokenizer reads it) ->
// training -> a GPT-2 folder (checkpoint.h) plus training_log.json:
//   {"command": "...", "seed": S, "config": {...}, "steps": [{"step", "train_loss", "val_loss",
//    "tokens_per_s", "learning_rate"}, ...], "completed_steps": N, "finished": bool,
//    "final": {"step", "train_loss", "val_loss", "val_perplexity"}, "train_seconds",
//    "tokens_per_s", "gflop_per_s"}
// Checkpoints (model.safetensors, then training_log.json) are written at every validation and
// at the end; each file is replaced atomically, so an interrupted run leaves the last complete
// checkpoint in place.
#include <filesystem>
#include <functional>
#include <optional>
#include <string>

#include "core/train/trainer.h"

namespace qkv::train {

struct TrainingJob {
    TrainingOptions options;
    std::string corpus = "builtin";  // "builtin" or a UTF-8 text file
    int vocabSize = 1024;            // upper bound; a small corpus may stop merging earlier
    std::filesystem::path outputDir;
    std::string command;      // recorded in training_log.json
    bool saveWeights = true;  // false: the log only (experiments keep no weights)
};

struct JobCallbacks {
    TrainingCallbacks training;
    std::function<void(const std::string&)> onStatus;  // preparation steps, one line each
};

struct JobResult {
    TrainingRun run;
    std::optional<int> checkpointStep;  // the step of the last checkpoint written, if any
};

// Throws qkv::Error when the corpus cannot be read or the folder cannot be written.
JobResult runTrainingJob(const TrainingJob& job, const JobCallbacks& callbacks = {});

}  // namespace qkv::train
