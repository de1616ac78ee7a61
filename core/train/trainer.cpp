#include "core/train/trainer.h"

#include <chrono>
#include <cmath>
#include <thread>

#include "core/backend/gemm.h"
#include "core/train/corpus.h"
#include "core/train/gpt2_network.h"
#include "core/train/parameters.h"
#include "core/train/random.h"
#include "core/train/variant_metrics.h"
#include "core/util/error.h"

namespace qkv::train {
namespace {

using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point start) {
    return std::chrono::duration<double>(Clock::now() - start).count();
}

int threadCount(const TrainingOptions& options) {
    if (options.threads > 0) return options.threads;
    return std::max(1u, std::thread::hardware_concurrency());
}

void checkOptions(const TrainingOptions& options) {
    options.shape.validate();
    if (options.steps < 1) throw Error("steps must be at least 1");
    if (options.batchSize < 1) throw Error("the batch size must be at least 1");
    if (options.evalInterval < 1) throw Error("the evaluation interval must be at least 1");
}

// Random windows of context + 1 tokens: inputs and the targets one token later.
void sampleBatch(Random& random, const std::vector<int>& stream, int sequences, int length,
                 std::vector<int>& inputs, std::vector<int>& targets) {
    inputs.resize(static_cast<size_t>(sequences) * length);
    targets.resize(inputs.size());
    const int starts = static_cast<int>(stream.size()) - length;
    for (int b = 0; b < sequences; ++b) {
        const int begin = random.below(starts);
        for (int t = 0; t < length; ++t) {
            inputs[b * length + t] = stream[begin + t];
            targets[b * length + t] = stream[begin + t + 1];
        }
    }
}

struct Validation {
    double loss = 0;
    double attentionEntropy = 0;
};

// Mean loss and attention entropy over evaluationWindows(): full windows batched, the last
// short one on its own.
Validation validate(Gpt2Network<float>& network, const std::vector<float>& params,
                    const std::vector<int>& stream, int batchSize) {
    const int context = network.shape().context;
    const std::vector<Window> windows = evaluationWindows(stream.size(), context);
    double total = 0.0, entropy = 0.0;
    std::size_t count = 0;
    std::vector<int> inputs, targets;
    for (size_t first = 0; first < windows.size();) {
        const int length = windows[first].length;
        size_t last = first;
        while (last < windows.size() && windows[last].length == length &&
               last - first < static_cast<size_t>(batchSize))
            ++last;
        const int sequences = static_cast<int>(last - first);
        inputs.clear();
        targets.clear();
        for (size_t w = first; w < last; ++w)
            for (int t = 0; t < length; ++t) {
                inputs.push_back(stream[windows[w].begin + t]);
                targets.push_back(stream[windows[w].begin + t + 1]);
            }
        const double mean =
            network.forward(params.data(), inputs.data(), targets.data(), sequences, length);
        total += mean * sequences * length;
        entropy += network.attentionEntropy() * sequences * length;
        count += static_cast<size_t>(sequences) * length;
        first = last;
    }
    if (!count) return {};
    return {total / count, entropy / count};
}

// The relation probe through the training forward, one pair's sequence at a time.
RelationScore probeRelations(Gpt2Network<float>& network, const std::vector<float>& params,
                             const std::vector<TokenizedRelation>& relations) {
    const int context = network.shape().context, vocab = network.shape().vocab;
    return scoreRelations(relations, [&](const std::vector<int>& ids) {
        const int length = std::min(static_cast<int>(ids.size()) - 1, context);
        const std::vector<int> inputs(ids.end() - length - 1, ids.end() - 1);
        const std::vector<int> targets(ids.end() - length, ids.end());
        network.forward(params.data(), inputs.data(), targets.data(), 1, length);
        std::vector<double> logp = pickLogProbabilities(network.logits().data(), vocab, targets);
        // Positions cut off at the front (longer than the context) are not scored anyway.
        logp.insert(logp.begin(), ids.size() - 1 - length, 0.0);
        return logp;
    });
}

}  // namespace

int TrainingOptions::evaluationEvery() const {
    return std::max(1, std::min(evalInterval, steps / kMinEvaluations));
}

TrainingRun train(const TrainingOptions& options, const TrainingData& data,
                  const TrainingCallbacks& callbacks) {
    checkOptions(options);
    const ModelShape& shape = options.shape;
    if (data.train.size() < static_cast<size_t>(shape.context) + 2)
        throw Error("the training text has " + std::to_string(data.train.size()) +
                    " tokens; it needs more than one context window (" +
                    std::to_string(shape.context + 1) + ")");
    if (data.validation.size() < 2) throw Error("the validation text is empty");

    useSingleThreadedBlas();
    ThreadPool pool(threadCount(options));
    Gpt2Network<float> network(shape, pool);
    OptimizerSettings optimizerSettings = options.optimizer;
    optimizerSettings.totalSteps = options.steps;
    AdamW optimizer(network.layout(), optimizerSettings);

    TrainingRun run;
    run.params = initialParameters(network.layout(), shape, options.seed);
    std::vector<float> grads(run.params.size());
    Random batches(options.seed ^ 0x9E3779B97F4A7C15ull);
    std::vector<int> inputs, targets;
    const double stepFlops = network.trainingFlops(options.batchSize, shape.context);

    const int every = options.evaluationEvery();
    double intervalLoss = 0.0, intervalSeconds = 0.0, intervalQuery = 0.0, intervalKey = 0.0;
    int intervalSteps = 0;
    auto evaluate = [&](LogEntry entry) {
        const Validation v = validate(network, run.params, data.validation, options.batchSize);
        entry.valLoss = v.loss;
        entry.attentionEntropy = v.attentionEntropy;
        if (!data.relations.empty())
            entry.relations = probeRelations(network, run.params, data.relations);
        run.log.push_back(entry);
        if (callbacks.onEvaluation) callbacks.onEvaluation(run);
    };

    const Clock::time_point start = Clock::now();
    double evaluationSeconds = 0.0;  // inside step 0, which evaluates before its update
    for (int step = 0; step < options.steps; ++step) {
        const Clock::time_point stepStart = Clock::now();
        sampleBatch(batches, data.train, options.batchSize, shape.context, inputs, targets);
        const double loss = network.forward(run.params.data(), inputs.data(), targets.data(),
                                            options.batchSize, shape.context);
        if (!std::isfinite(loss))
            throw Error("training diverged at step " + std::to_string(step + 1) +
                        " (loss is not finite); try a lower learning rate");
        std::fill(grads.begin(), grads.end(), 0.0f);
        network.backward(run.params.data(), grads.data());
        const SlotGradientNorms norms = slotGradientNorms(shape, network.layout(), grads);
        if (step == 0) {
            // The point before the first update: this batch's loss, validation at the start.
            LogEntry initial;
            initial.trainLoss = loss;
            initial.gradNormQuery = norms.query;
            initial.gradNormKey = norms.key;
            const Clock::time_point evaluationStart = Clock::now();
            evaluate(initial);
            evaluationSeconds = secondsSince(evaluationStart);
        }
        optimizer.step(run.params, grads, step);
        const double seconds = secondsSince(stepStart) - evaluationSeconds;
        evaluationSeconds = 0.0;

        run.stepsDone = step + 1;
        run.trainSeconds += seconds;
        run.flops += stepFlops;
        intervalLoss += loss;
        intervalSeconds += seconds;
        intervalQuery += norms.query;
        intervalKey += norms.key.value_or(0.0);
        ++intervalSteps;
        if (callbacks.onStep)
            callbacks.onStep({run.stepsDone, options.steps, loss,
                              run.stepsDone * options.tokensPerStep() / run.trainSeconds,
                              secondsSince(start)});
        if (callbacks.cancel && callbacks.cancel->load()) {
            run.cancelled = true;
            break;
        }
        if (run.stepsDone % every == 0 || run.stepsDone == options.steps) {
            LogEntry entry;
            entry.step = run.stepsDone;
            entry.trainLoss = intervalLoss / intervalSteps;
            entry.tokensPerSecond = intervalSteps * options.tokensPerStep() / intervalSeconds;
            entry.learningRate = learningRateAt(optimizerSettings, step);
            entry.gradNormQuery = intervalQuery / intervalSteps;
            if (norms.key) entry.gradNormKey = intervalKey / intervalSteps;
            evaluate(entry);
            intervalLoss = intervalSeconds = intervalQuery = intervalKey = 0.0;
            intervalSteps = 0;
        }
    }
    return run;
}

ThroughputReport trainSteps(const TrainingOptions& options, int steps) {
    TrainingOptions o = options;
    o.steps = steps;
    Random random(o.seed);
    TrainingData data;
    const int length = 8 * o.tokensPerStep();
    for (int i = 0; i < length; ++i) data.train.push_back(random.below(o.shape.vocab));
    data.validation.assign(data.train.begin(), data.train.begin() + 2);
    double lossSum = 0.0;  // the validations are of two tokens: timing is the steps'
    TrainingCallbacks callbacks;
    callbacks.onStep = [&](const StepProgress& p) { lossSum += p.loss; };
    const TrainingRun run = train(o, data, callbacks);
    ThroughputReport report;
    report.steps = run.stepsDone;
    report.tokensPerStep = o.tokensPerStep();
    report.seconds = run.trainSeconds;
    report.tokensPerSecond = run.stepsDone * o.tokensPerStep() / run.trainSeconds;
    report.flopsPerStep = run.flops / run.stepsDone;
    report.gflopsPerSecond = run.flops / run.trainSeconds / 1e9;
    report.meanLoss = run.stepsDone ? lossSum / run.stepsDone : 0.0;
    return report;
}

}  // namespace qkv::train
