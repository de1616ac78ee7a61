#include "bench/large_model_bench.h"

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <functional>
#include <iostream>
#include <nlohmann/json.hpp>
#include <random>
#include <thread>

#include "bench/bench_common.h"
#include "bench/random_checkpoint.h"
#include "core/analysis/head_metrics.h"
#include "core/model/forward.h"

namespace qkv::bench {
namespace {

// Anonymous resident memory of a process in bytes (0 once it is gone).
std::uint64_t rssAnon(pid_t pid) {
    std::ifstream status("/proc/" + std::to_string(pid) + "/status");
    std::string line;
    while (std::getline(status, line))
        if (line.rfind("RssAnon:", 0) == 0) return std::stoull(line.substr(8)) * 1024;
    return 0;
}

struct Stage {
    double seconds = -1;  // as the child measured it; < 0: failed
    std::uint64_t peakAnon = 0;
    std::string error;
};

// Runs `work` (which returns the seconds of what it times) in a child process: the parent
// starts no threads, so forking is safe, and each stage's memory is its own.
Stage inChild(const std::function<double()>& work) {
    int fds[2];
    if (pipe(fds) != 0) return {-1, 0, "pipe failed"};
    const pid_t pid = fork();
    if (pid == 0) {
        close(fds[0]);
        std::string report;
        try {
            report = std::to_string(work());
        } catch (const std::exception& e) {
            report = std::string("error ") + e.what();
        }
        const ssize_t written = write(fds[1], report.data(), report.size());
        _exit(written == static_cast<ssize_t>(report.size()) ? 0 : 1);
    }
    close(fds[1]);
    Stage stage;
    int status = 0;
    while (waitpid(pid, &status, WNOHANG) == 0) {
        stage.peakAnon = std::max(stage.peakAnon, rssAnon(pid));
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    std::string report;
    char buffer[4096];
    for (ssize_t got; (got = read(fds[0], buffer, sizeof buffer)) > 0;) report.append(buffer, got);
    close(fds[0]);
    if (report.rfind("error ", 0) == 0)
        stage.error = report.substr(6);
    else if (!report.empty())
        stage.seconds = std::stod(report);
    else
        stage.error = "the measuring process died (status " + std::to_string(status) + ")";
    return stage;
}

std::vector<int> randomIds(int count, int vocab) {
    std::mt19937 engine(11);
    std::uniform_int_distribution<int> id(0, vocab - 1);
    std::vector<int> ids(count);
    for (int& i : ids) i = id(engine);
    return ids;
}

// Seconds of the forward that PyTorch (bfloat16, the same weights) needs; < 0 when it failed.
double torchForward(const LargeModelOptions& o, const std::string& dir) {
    const std::string script = std::string(QKV_BENCH_SOURCE_DIR) + "/torch_llama.py";
    const std::string command =
        o.python + " " + script + " " + dir + " --tokens " + std::to_string(o.tokens) + " 2>&1";
    const nlohmann::json result = runReferenceScript(command);
    return result.is_object()
               ? result.at("forward_seconds").at(std::to_string(o.tokens)).get<double>()
               : -1.0;
}

std::string gb(std::uint64_t bytes) {
    char text[32];
    std::snprintf(text, sizeof text, "%.2f GB", bytes / 1e9);
    return text;
}

void printRow(const char* what, const Stage& s, double limitSeconds, std::uint64_t limitAnon,
              const std::string& note = {}) {
    if (!s.error.empty()) {
        std::printf("%-38s FAILED: %s\n", what, s.error.c_str());
        return;
    }
    const bool met = s.seconds <= limitSeconds && s.peakAnon <= limitAnon;
    std::printf("%-38s %9.2f s  (<= %.1f s)   %9s  (<= %s)   %s%s\n", what, s.seconds, limitSeconds,
                gb(s.peakAnon).c_str(), gb(limitAnon).c_str(), met ? "met" : "MISSED",
                note.c_str());
}

}  // namespace

int runLargeModelBench(const LargeModelOptions& o) {
    const Architecture shape = llama3_8b();
    TemporaryFolder temporary;
    const std::string dir =
        llamaCheckpointFolder(o.checkpoint, shape, "Llama-3-8B-shaped (16 GB)", temporary);
    const std::vector<int> ids = randomIds(o.tokens, shape.vocabSize);

    std::cerr << "open + info ...\n";
    const Stage info = inChild([&] {
        const auto start = Clock::now();
        auto model = Model::open(dir);
        const std::uint64_t parameters = model->parameterCount();  // what info prints
        return parameters > 0 ? seconds(start) : -1.0;
    });
    std::cerr << "analyze every head ...\n";
    const Stage analyze = inChild([&] {
        auto model = Model::open(dir);
        const auto start = Clock::now();
        // The W_QK and OV metrics of every head; the OV copying score's W_U W_E product over
        // a 128k vocabulary (4 TFLOP) is left out, as survey/analyze --no-copying-score does.
        analyzeModel(*model, WConfiguration{}, nullptr, nullptr,
                     [](int done, int total) {
                         std::cerr << "\r  layer " << done << " of " << total << std::flush;
                     },
                     {.copyingScores = false});
        std::cerr << "\n";
        return seconds(start);
    });
    const int heads = shape.layers * shape.heads;
    std::cerr << "forward + capture of one head at " << o.tokens << " tokens ...\n";
    const Stage forward = inChild([&] {
        auto model = Model::open(dir);
        auto backend = createCpuBackend();
        const ForwardPass pass(*model, *backend);
        ForwardRequest request;
        request.ids = ids;
        request.capture.layer = 0;
        request.capture.head = 0;
        request.logits = LogitsMode::None;  // as the app's Head view
        auto start = Clock::now();
        pass.run(request);  // first touch of the mapped weights
        std::cerr << "  first forward " << seconds(start) << " s\n";
        start = Clock::now();
        pass.run(request);
        return seconds(start);
    });

    std::cerr << "measuring SGEMM throughput ...\n";
    const double gflops = sgemmGflops();
    const double params =
        static_cast<double>(shape.layers) *
            (2.0 * shape.dModel * shape.heads * shape.headDim +
             2.0 * shape.dModel * shape.kvHeads * shape.headDim + 3.0 * shape.dModel * shape.dFF) +
        2.0 * shape.vocabSize * shape.dModel;
    const double ideal = 2.0 * params * o.tokens / (gflops * 1e9);
    double torchSeconds = -1;
    if (o.torch) {
        std::cerr << "PyTorch bfloat16 forward ...\n";
        torchSeconds = torchForward(o, dir);
    }

    std::printf(
        "\nLlama-3-8B shape (%.2fB parameters, bf16, 32 layers, 32 query / 8 KV heads), "
        "%d tokens\n",
        params / 1e9, o.tokens);
    std::printf("SGEMM %.1f GFLOP/s: 2 * params * tokens takes %.2f s at that rate\n", gflops,
                ideal);
    std::printf(
        "peak anonymous memory: RssAnon sampled every 10 ms (the mapped weights are "
        "file pages, not counted)\n\n");
    printRow("open + info", info, 0.5, 200'000'000);
    printRow(("analyze " + std::to_string(heads) + " heads").c_str(), analyze, 60.0, 2'000'000'000);
    char note[96];
    std::snprintf(note, sizeof note, "  (%.2fx the SGEMM time)", forward.seconds / ideal);
    printRow("forward + capture one head", forward, 1.5 * ideal, 3'000'000'000, note);
    if (torchSeconds > 0)
        std::printf("%-38s %9.2f s   qkvlab / PyTorch = %.3f\n", "PyTorch bfloat16 forward",
                    torchSeconds, forward.seconds / torchSeconds);
    else if (o.torch)
        std::printf("%-38s failed (see above)\n", "PyTorch bfloat16 forward");
    return info.error.empty() && analyze.error.empty() && forward.error.empty() ? 0 : 1;
}

}  // namespace qkv::bench
