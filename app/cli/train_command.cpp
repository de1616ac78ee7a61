#include <unistd.h>

#include <atomic>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "app/cli/command.h"
#include "app/cli/train_options.h"
#include "core/train/corpus.h"
#include "core/train/training_job.h"
#include "core/util/error.h"

namespace qkv::cli {
namespace {

std::vector<OptionSpec> trainOptions() {
    std::vector<OptionSpec> options{
        {"config", "NAME",
         "attention variant: learned, shared-qk, tied-kv, single-w, full-bilinear, "
         "scale-outside or shared-qk-reformer"}};
    for (const OptionSpec& o : trainingRunOptions("worker threads (default: all cores)"))
        options.push_back(o);
    options.insert(options.end(),
                   {{"seed", "S", "random seed for initialisation and batches (default 1)"},
                    {"out", "DIR", "model folder to write (created if missing)"}});
    return options;
}

train::TrainingJob readJob(const Arguments& args) {
    train::TrainingJob job = readTrainingRun(args);
    try {
        job.options.shape.tying = train::AttentionTying::parse(args.required("config"));
    } catch (const Error& e) {
        throw UsageError(std::string("--config: ") + e.what());
    }
    job.options.seed = static_cast<std::uint64_t>(args.integer("seed", 0, 0x7fffffff).value_or(1));
    job.outputDir = args.required("out");
    return job;
}

int runTrain(const Arguments& args) {
    train::TrainingJob job = readJob(args);
    job.command = "qkvlab-cli train" + givenOptions(args, trainOptions());
    const bool tty = ::isatty(STDERR_FILENO);
    const int lineEvery = std::max(1, job.options.steps / 20);

    train::JobCallbacks callbacks;
    callbacks.onStatus = [](const std::string& line) {
        std::fprintf(stderr, "%s\n", line.c_str());
    };
    const InterruptFlag interrupt;
    callbacks.training.cancel = interrupt.flag();
    callbacks.training.onStep = [&](const train::StepProgress& p) {
        if (!tty && p.step % lineEvery != 0) return;
        const double eta = p.elapsedSeconds / p.step * (p.steps - p.step);
        std::fprintf(stderr, "%sstep %d/%d  loss %.4f  %.0f tok/s  elapsed %s  ETA %s%s",
                     tty ? "\r" : "", p.step, p.steps, p.loss, p.tokensPerSecond,
                     formatDuration(p.elapsedSeconds).c_str(), formatDuration(eta).c_str(),
                     tty ? "   " : "\n");
    };
    callbacks.training.onEvaluation = [&](const train::TrainingRun& run) {
        const train::LogEntry& e = run.log.back();
        std::fprintf(stderr,
                     "%sstep %d: train loss %.4f, validation loss %.4f (perplexity %.2f); "
                     "checkpoint written\n",
                     tty ? "\n" : "", e.step, e.trainLoss, e.valLoss, std::exp(e.valLoss));
    };

    const train::JobResult result = train::runTrainingJob(job, callbacks);

    const std::string folder = job.outputDir.string();
    if (result.run.cancelled) {
        std::fprintf(stderr, "\ninterrupted after step %d; ", result.run.stepsDone);
        if (result.checkpointStep)
            std::fprintf(stderr, "the last complete checkpoint (step %d) is in %s\n",
                         *result.checkpointStep, folder.c_str());
        else
            std::fprintf(stderr,
                         "no checkpoint had been written yet (the first comes at step "
                         "%d); %s holds only the tokenizer and config.json\n",
                         job.options.evaluationEvery(), folder.c_str());
        return 130;
    }
    const train::LogEntry& last = result.run.log.back();
    std::printf(
        "trained %s (%s) for %d steps: train loss %.4f, validation loss %.4f "
        "(perplexity %.2f)\nmodel folder: %s\n",
        job.options.shape.tying.name.c_str(), job.corpus.c_str(), last.step, last.trainLoss,
        last.valLoss, std::exp(last.valLoss), folder.c_str());
    return 0;
}

}  // namespace

Command trainCommand() {
    return {"train",
            "train a small GPT-2 under one attention variant (learned, tied, full-bilinear, ...) "
            "into a model folder",
            trainOptions(), runTrain};
}

}  // namespace qkv::cli
