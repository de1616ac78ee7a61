#include <algorithm>
#include <chrono>
#include <cstdio>
#include <sstream>
#include <thread>

#include "app/cli/command.h"
#include "app/cli/train_options.h"
#include "core/train/experiment.h"
#include "core/util/error.h"

namespace qkv::cli {
namespace {

std::vector<OptionSpec> experimentOptions() {
    std::vector<OptionSpec> options{
        {"variants", "A,B,...",
         "attention variants to train (default: all seven: learned, shared-qk, tied-kv, "
         "single-w, full-bilinear, scale-outside, shared-qk-reformer)"},
        {"seeds", "N", "seeds 1..N per variant (default 3)"},
        {"baseline", "NAME", "the variant the others are compared with (default learned)"},
        {"jobs", "N", "runs at once (default: the number of cores, at most 8)"}};
    for (const OptionSpec& o :
         trainingRunOptions("worker threads per run (default 1: the same numbers however many "
                            "runs share the machine)"))
        options.push_back(o);
    options.push_back({"out", "DIR",
                       "experiment folder (created if missing; finished runs in it "
                       "are kept and not trained again)"});
    return options;
}

std::vector<std::string> splitList(const std::string& text) {
    std::vector<std::string> items;
    std::stringstream stream(text);
    for (std::string item; std::getline(stream, item, ',');)
        if (!item.empty()) items.push_back(item);
    return items;
}

train::ExperimentPlan readPlan(const Arguments& args) {
    train::ExperimentPlan plan;
    plan.run = readTrainingRun(args);
    if (!args.value("threads")) plan.run.options.threads = 1;
    train::ExperimentLayout& layout = plan.layout;
    const auto& all = train::AttentionTying::names();
    layout.variants = args.value("variants") ? splitList(*args.value("variants"))
                                             : std::vector<std::string>(all.begin(), all.end());
    if (layout.variants.empty()) throw UsageError("--variants names no variant");
    for (const std::string& v : layout.variants) {
        try {
            train::AttentionTying::parse(v);
        } catch (const Error& e) {
            throw UsageError(std::string("--variants: ") + e.what());
        }
        if (std::count(layout.variants.begin(), layout.variants.end(), v) > 1)
            throw UsageError("--variants names " + v + " twice");
    }
    const int seeds = args.integer("seeds", 1, 100).value_or(3);
    for (int s = 1; s <= seeds; ++s) layout.seeds.push_back(static_cast<std::uint64_t>(s));
    layout.baseline = args.value("baseline").value_or("learned");
    if (std::find(layout.variants.begin(), layout.variants.end(), layout.baseline) ==
        layout.variants.end())
        throw UsageError("the baseline " + layout.baseline + " is not among --variants");
    const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    plan.parallelRuns = args.integer("jobs", 1, 64).value_or(std::min(cores, 8));
    plan.outputDir = args.required("out");
    plan.command = "qkvlab-cli experiment" + givenOptions(args, experimentOptions());
    return plan;
}

int runExperimentCommand(const Arguments& args) {
    const train::ExperimentPlan plan = readPlan(args);
    const int total = static_cast<int>(plan.layout.variants.size() * plan.layout.seeds.size());
    std::fprintf(stderr, "%d runs (%zu variants x %zu seeds), %d at a time, into %s\n", total,
                 plan.layout.variants.size(), plan.layout.seeds.size(), plan.parallelRuns,
                 plan.outputDir.string().c_str());
    const InterruptFlag interrupt;
    train::ExperimentCallbacks callbacks;
    callbacks.cancel = interrupt.flag();
    const auto start = std::chrono::steady_clock::now();
    callbacks.onRunFinished = [&](const train::ExperimentRun& run, int done, int count) {
        const double elapsed =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        std::string relations;
        if (run.relationAccuracy) {
            char text[48];
            std::snprintf(text, sizeof text, ", relation accuracy %.3f", *run.relationAccuracy);
            relations = text;
        }
        std::fprintf(
            stderr, "[%d/%d] %s seed %llu: validation loss %.4f%s (%s%s)  elapsed %s\n", done,
            count, run.variant.c_str(), static_cast<unsigned long long>(run.seed), run.valLoss,
            relations.c_str(), run.reused ? "kept from an earlier run" : "trained in ",
            run.reused ? "" : formatDuration(run.seconds).c_str(), formatDuration(elapsed).c_str());
    };
    const train::ExperimentResult result = train::runExperiment(plan, callbacks);
    std::printf("%s", train::summaryTable(result.summary).c_str());
    std::printf("summary: %s\n", (plan.outputDir / "summary.json").string().c_str());
    if (result.cancelled) {
        std::fprintf(stderr,
                     "interrupted; the finished runs are kept, and the same command resumes\n");
        return 130;
    }
    return 0;
}

}  // namespace

Command experimentCommand() {
    return {"experiment",
            "train attention variants over several seeds and summarise them with error bars "
            "(mean ± sd, paired differences against a baseline)",
            experimentOptions(), runExperimentCommand};
}

}  // namespace qkv::cli
