#include "app/cli/train_options.h"

#include <csignal>
#include <cstdio>
#include <cstdlib>

#include "core/train/corpus.h"

namespace qkv::cli {
namespace {

std::atomic<bool> g_interrupted{false};

// Checkpoint and log files are replaced atomically, so ending the process at once leaves no
// broken file.
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

}  // namespace

std::vector<OptionSpec> trainingRunOptions(const std::string& threadsHelp) {
    return {
        {"layers", "N", "transformer layers (default 4)"},
        {"heads", "H", "attention heads per layer (default 4)"},
        {"d-model", "D", "model width, a multiple of --heads (default 128)"},
        {"context", "C", "context length in tokens (default 128)"},
        {"corpus", "FILE|builtin", "UTF-8 text to train on (default: the built-in stories)"},
        {"vocab", "N", "upper bound on the BPE vocabulary size (default 1024)"},
        {"steps", "N", "optimizer steps (default 2000)"},
        {"batch", "N", "sequences per step (default 16)"},
        {"lr", "X", "peak learning rate (default 0.006; warmup, then cosine decay to a tenth)"},
        {"eval-interval", "N",
         "steps between validations (default 100; shorter runs still log at least 10)"},
        {"threads", "N", threadsHelp},
    };
}

train::TrainingJob readTrainingRun(const Arguments& args) {
    train::TrainingJob job;
    train::TrainingOptions& o = job.options;
    o.shape.layers = args.integer("layers", 1, 64).value_or(o.shape.layers);
    o.shape.heads = args.integer("heads", 1, 64).value_or(o.shape.heads);
    o.shape.dModel = args.integer("d-model", 1, 4096).value_or(o.shape.dModel);
    o.shape.context = args.integer("context", 2, 4096).value_or(o.shape.context);
    if (o.shape.dModel % o.shape.heads != 0)
        throw UsageError("--d-model (" + std::to_string(o.shape.dModel) +
                         ") must be a multiple of --heads (" + std::to_string(o.shape.heads) + ")");
    o.steps = args.integer("steps", 1, 10'000'000).value_or(o.steps);
    o.batchSize = args.integer("batch", 1, 4096).value_or(o.batchSize);
    o.threads = args.integer("threads", 0, 1024).value_or(0);
    o.evalInterval = args.integer("eval-interval", 1, 10'000'000).value_or(o.evalInterval);
    o.optimizer.learningRate = parseNumber(args, "lr", o.optimizer.learningRate, 1e-7, 1.0);
    o.optimizer.finalLearningRate = o.optimizer.learningRate / 10;
    o.optimizer.warmupSteps = std::max(1, std::min(o.optimizer.warmupSteps, o.steps / 10));
    job.vocabSize = args.integer("vocab", 258, 65536).value_or(job.vocabSize);
    job.corpus = args.value("corpus").value_or(train::kBuiltinCorpus);
    return job;
}

std::string givenOptions(const Arguments& args, const std::vector<OptionSpec>& specs) {
    std::string line;
    for (const OptionSpec& spec : specs)
        if (auto value = args.value(spec.name)) line += " --" + spec.name + " " + *value;
    return line;
}

std::string formatDuration(double seconds) {
    const long s = static_cast<long>(seconds + 0.5);
    char text[32];
    std::snprintf(text, sizeof text, "%ld:%02ld", s / 60, s % 60);
    return text;
}

InterruptFlag::InterruptFlag() {
    g_interrupted.store(false);
    std::signal(SIGINT, onInterrupt);
}

InterruptFlag::~InterruptFlag() { std::signal(SIGINT, SIG_DFL); }

const std::atomic<bool>* InterruptFlag::flag() const { return &g_interrupted; }

}  // namespace qkv::cli
