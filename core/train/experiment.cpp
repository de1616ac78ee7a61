#include "core/train/experiment.h"

#include <chrono>
#include <fstream>
#include <mutex>
#include <thread>

#include "core/util/atomic_file.h"
#include "core/util/error.h"

namespace qkv::train {
namespace {

struct RunTask {
    std::string variant;
    std::uint64_t seed = 0;
};

// The finished log of an earlier run with the same command, if there is one.
std::optional<ExperimentRun> reusableRun(const std::filesystem::path& folder, const RunTask& task,
                                         const std::string& command) {
    std::ifstream in(folder / "training_log.json");
    if (!in) return std::nullopt;
    const auto log = nlohmann::json::parse(in, nullptr, false);
    if (log.is_discarded() || !log.value("finished", false) ||
        log.value("command", std::string()) != command || !log.contains("final"))
        return std::nullopt;
    ExperimentRun run{task.variant, task.seed, true, log["final"].value("val_loss", 0.0), {}, 0.0};
    if (log["final"].contains("relation_accuracy"))
        run.relationAccuracy = log["final"]["relation_accuracy"].get<double>();
    return run;
}

// A run's folder keeps only its log: the tokenizer and config.json are the same in every run.
void keepOnlyTheLog(const std::filesystem::path& folder) {
    for (const auto& entry : std::filesystem::directory_iterator(folder))
        if (entry.path().filename() != "training_log.json")
            std::filesystem::remove_all(entry.path());
}

}  // namespace

ExperimentResult runExperiment(const ExperimentPlan& plan, const ExperimentCallbacks& callbacks) {
    const ExperimentLayout& layout = plan.layout;
    std::vector<RunTask> tasks;
    // Seed-major order: an interrupted experiment has whole seeds of every variant first.
    for (std::uint64_t seed : layout.seeds)
        for (const std::string& variant : layout.variants) tasks.push_back({variant, seed});
    // Every variant's name is checked before anything is trained.
    for (const std::string& variant : layout.variants) AttentionTying::parse(variant);

    std::atomic<bool> stop{false};
    std::mutex mutex;
    std::size_t next = 0;
    int done = 0;
    std::string failure;
    auto worker = [&] {
        for (;;) {
            RunTask task;
            {
                std::lock_guard lock(mutex);
                if (next == tasks.size() || stop) return;
                task = tasks[next++];
            }
            const std::filesystem::path folder = runFolder(plan.outputDir, task.variant, task.seed);
            const std::string command =
                plan.command + "  # run: " + task.variant + ", seed " + std::to_string(task.seed);
            const auto start = std::chrono::steady_clock::now();
            std::optional<ExperimentRun> finished = reusableRun(folder, task, command);
            try {
                if (!finished) {
                    TrainingJob job = plan.run;
                    job.options.shape.tying = AttentionTying::parse(task.variant);
                    job.options.seed = task.seed;
                    job.outputDir = folder;
                    job.saveWeights = false;
                    job.command = command;
                    JobCallbacks jobCallbacks;
                    jobCallbacks.training.cancel = &stop;
                    const JobResult result = runTrainingJob(job, jobCallbacks);
                    if (result.run.cancelled) return;
                    keepOnlyTheLog(folder);
                    const LogEntry& last = result.run.log.back();
                    finished = ExperimentRun{task.variant, task.seed, false, last.valLoss, {}, 0.0};
                    if (last.relations) finished->relationAccuracy = last.relations->accuracy;
                }
            } catch (const std::exception& e) {
                std::lock_guard lock(mutex);
                if (failure.empty())
                    failure =
                        task.variant + ", seed " + std::to_string(task.seed) + ": " + e.what();
                stop = true;
                return;
            }
            finished->seconds =
                std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
            std::lock_guard lock(mutex);
            ++done;
            if (callbacks.onRunFinished)
                callbacks.onRunFinished(*finished, done, static_cast<int>(tasks.size()));
        }
    };
    // Polls the caller's cancel flag into `stop`, which the runs watch.
    std::atomic<bool> finishedAll{false};
    std::thread watcher([&] {
        while (!finishedAll) {
            if (callbacks.cancel && callbacks.cancel->load()) stop = true;
            std::this_thread::sleep_for(std::chrono::milliseconds(100));
        }
    });
    std::vector<std::thread> workers;
    for (int i = 0; i < std::max(1, plan.parallelRuns); ++i) workers.emplace_back(worker);
    for (std::thread& t : workers) t.join();
    finishedAll = true;
    watcher.join();
    if (!failure.empty()) throw Error("the experiment stopped: " + failure);

    ExperimentResult result;
    result.cancelled = callbacks.cancel && callbacks.cancel->load();
    result.summary = summarizeExperiment(plan.outputDir, layout, plan.command);
    writeFileAtomically(plan.outputDir / "summary.json", result.summary.dump(2) + "\n");
    writeFileAtomically(plan.outputDir / "summary.md", summaryTable(result.summary));
    return result;
}

}  // namespace qkv::train
