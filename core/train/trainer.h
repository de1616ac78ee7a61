#pragma once
// The training loop: random windows of the training stream, AdamW with warmup + cosine decay
// and gradient clipping, validation at fixed intervals. Deterministic given the seed and the
// thread count (each kernel splits its work by the pool size; OpenBLAS runs single-threaded
// inside each piece, so no reduction order depends on timing).
#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "core/train/adamw.h"
#include "core/train/model_shape.h"
#include "core/train/relation_probe.h"

namespace qkv::train {

struct TrainingOptions {
    ModelShape shape;  // shape.vocab comes from the tokenizer
    int steps = 2000;
    int batchSize = 16;           // sequences of shape.context tokens per step
    OptimizerSettings optimizer;  // totalSteps is taken from `steps`
    std::uint64_t seed = 1;
    int evalInterval = 100;  // steps between validations (and checkpoints); see evaluationEvery
    static constexpr int kMinEvaluations = 10;
    int threads = 0;  // 0: every hardware thread

    int tokensPerStep() const { return batchSize * shape.context; }
    // evalInterval, shortened so that even a short run logs at least kMinEvaluations points.
    int evaluationEvery() const;
};

struct TrainingData {
    std::vector<int> train;
    std::vector<int> validation;
    std::vector<TokenizedRelation> relations;  // the relation probe; empty: not scored
};

// One point of the loss curve (training_log.json "steps"). The first is step 0, before any
// update: its training loss is the first batch's.
struct LogEntry {
    int step = 0;                // steps done
    double trainLoss = 0;        // mean training loss since the previous entry
    double valLoss = 0;          // mean next-token loss over the whole validation stream
    double tokensPerSecond = 0;  // training tokens per second since the previous entry
    double learningRate = 0;     // at the entry's last step
    std::optional<RelationScore> relations;  // the relation probe, when the data has one
    double attentionEntropy = 0;             // mean over the validation's attention rows (nats)
    // Mean since the previous entry of the Q- and K-slot gradient norms (variant_metrics.h),
    // before clipping.
    double gradNormQuery = 0;
    std::optional<double> gradNormKey;
};

struct StepProgress {
    int step = 0;  // steps done
    int steps = 0;
    double loss = 0;
    double tokensPerSecond = 0;  // since the start
    double elapsedSeconds = 0;
};

struct TrainingRun {
    int stepsDone = 0;
    bool cancelled = false;
    std::vector<float> params;
    std::vector<LogEntry> log;
    double trainSeconds = 0;  // in training steps (validation excluded)
    double flops = 0;         // matrix-product FLOPs of those steps
};

struct TrainingCallbacks {
    std::function<void(const StepProgress&)> onStep;
    // After each validation, with the run so far (parameters at that step, the log ending with
    // the new entry, totals): write a checkpoint here.
    std::function<void(const TrainingRun& run)> onEvaluation;
    const std::atomic<bool>* cancel = nullptr;  // polled after every step
};

// Throws qkv::Error for bad options or a stream shorter than one training window.
TrainingRun train(const TrainingOptions& options, const TrainingData& data,
                  const TrainingCallbacks& callbacks = {});

// Training throughput for the benchmark: `steps` steps on random tokens (options.shape.vocab
// must be set), no files, no validation.
struct ThroughputReport {
    int steps = 0;
    int tokensPerStep = 0;
    double seconds = 0;
    double tokensPerSecond = 0;
    double flopsPerStep = 0;  // matrix products, forward + backward
    double gflopsPerSecond = 0;
    double meanLoss = 0;  // mean training loss over the steps
};
ThroughputReport trainSteps(const TrainingOptions& options, int steps);

}  // namespace qkv::train
