#include <unistd.h>

#include <atomic>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "app/cli/command.h"
#include "core/train/corpus.h"
#include "core/train/training_job.h"
#include "core/util/error.h"

namespace qkv::cli {
namespace {

std::atomic<bool> g_interrupted{false};

// The first Ctrl+C asks the loop to stop after the current step; a second one ends the process
// at once (checkpoint files are replaced atomically, so neither leaves a broken file).
extern "C" void onInterrupt(int) {
    g_interrupted.store(true);
    std::signal(SIGINT, SIG_DFL);
}

double parseNumber(const Arguments& args, const std::string& name, double fallback, double min,
                   double max) {
    const auto text = args.value(name);
    if (!text) return fallback;
    char* end = nullptr;
    const double value = std::strtod(text->c_str(), &end);
    if (text->empty() || *end != '\0' || !(value >= min && value <= max)) {
        char range[64];
        std::snprintf(range, sizeof range, "from %g to %g", min, max);
        throw UsageError("option '--" + name + "' must be a number " + range + ", got '" + *text +
                         "'");
    }
    return value;
}

std::string formatDuration(double seconds) {
    const long s = static_cast<long>(seconds + 0.5);
    char text[32];
    std::snprintf(text, sizeof text, "%ld:%02ld", s / 60, s % 60);
    return text;
}

std::vector<OptionSpec> trainOptions() {
    return {
        {"config", "NAME", "attention tying: learned, shared-qk, tied-kv or single-w"},
        {"layers", "N", "transformer layers (default 4)"},
        {"heads", "H", "attention heads per layer (default 4)"},
        {"d-model", "D", "model width, a multiple of --heads (default 128)"},
        {"context", "C", "context length in tokens (default 128)"},
        {"corpus", "FILE|builtin", "UTF-8 text to train on (default: the built-in stories)"},
        {"vocab", "N", "upper bound on the BPE vocabulary size (default 1024)"},
        {"steps", "N", "optimizer steps (default 2000)"},
        {"batch", "N", "sequences per step (default 16)"},
        {"lr", "X", "peak learning rate (default 0.006; warmup, then cosine decay to a tenth)"},
        {"seed", "S", "random seed for initialisation and batches (default 1)"},
        {"eval-interval", "N", "steps between validation + checkpoint (default 100)"},
        {"threads", "N", "worker threads (default: all cores)"},
        {"out", "DIR", "model folder to write (created if missing)"},
    };
}

// The command as given (options in help order), for training_log.json.
std::string commandLine(const Arguments& args) {
    std::string line = "qkvlab-cli train";
    for (const OptionSpec& spec : trainOptions())
        if (auto value = args.value(spec.name)) line += " --" + spec.name + " " + *value;
    return line;
}

train::TrainingJob readJob(const Arguments& args) {
    train::TrainingJob job;
    train::TrainingOptions& o = job.options;
    try {
        o.shape.tying = train::AttentionTying::parse(args.required("config"));
    } catch (const Error& e) {
        throw UsageError(std::string("--config: ") + e.what());
    }
    o.shape.layers = args.integer("layers", 1, 64).value_or(o.shape.layers);
    o.shape.heads = args.integer("heads", 1, 64).value_or(o.shape.heads);
    o.shape.dModel = args.integer("d-model", 1, 4096).value_or(o.shape.dModel);
    o.shape.context = args.integer("context", 2, 4096).value_or(o.shape.context);
    if (o.shape.dModel % o.shape.heads != 0)
        throw UsageError("--d-model (" + std::to_string(o.shape.dModel) +
                         ") must be a multiple of --heads (" + std::to_string(o.shape.heads) + ")");
    o.steps = args.integer("steps", 1, 10'000'000).value_or(o.steps);
    o.batchSize = args.integer("batch", 1, 4096).value_or(o.batchSize);
    o.seed = static_cast<std::uint64_t>(args.integer("seed", 0, 0x7fffffff).value_or(1));
    o.threads = args.integer("threads", 0, 1024).value_or(0);
    o.evalInterval = args.integer("eval-interval", 1, 10'000'000).value_or(o.evalInterval);
    o.optimizer.learningRate = parseNumber(args, "lr", o.optimizer.learningRate, 1e-7, 1.0);
    o.optimizer.finalLearningRate = o.optimizer.learningRate / 10;
    o.optimizer.warmupSteps = std::max(1, std::min(o.optimizer.warmupSteps, o.steps / 10));
    job.vocabSize = args.integer("vocab", 258, 65536).value_or(job.vocabSize);
    job.corpus = args.value("corpus").value_or(train::kBuiltinCorpus);
    job.outputDir = args.required("out");
    return job;
}

int runTrain(const Arguments& args) {
    train::TrainingJob job = readJob(args);
    job.command = commandLine(args);
    const bool tty = ::isatty(STDERR_FILENO);
    const int lineEvery = std::max(1, job.options.steps / 20);

    train::JobCallbacks callbacks;
    callbacks.onStatus = [](const std::string& line) {
        std::fprintf(stderr, "%s\n", line.c_str());
    };
    callbacks.training.cancel = &g_interrupted;
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

    g_interrupted.store(false);
    std::signal(SIGINT, onInterrupt);
    const train::JobResult result = train::runTrainingJob(job, callbacks);
    std::signal(SIGINT, SIG_DFL);

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
                         std::min(job.options.evalInterval, job.options.steps), folder.c_str());
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
            "train a small GPT-2 with learned, shared-qk, tied-kv or single-w attention into a "
            "model folder",
            trainOptions(), runTrain};
}

}  // namespace qkv::cli
