// qkvlab-bench: speed and memory of the forward pass with attention capture on a
// GPT-2-small-shaped checkpoint, with ratios against references measured in the same
// invocation: the machine's SGEMM throughput (the physical limit) and a plain PyTorch forward;
// then the training lab's throughput on the shape of the shipped default models.
// Over 400 lines on purpose: one program whose options, reference runs and printed table read
// top to bottom; its checkpoint writer lives in bench/random_checkpoint.
#include <cblas.h>
#include <sys/wait.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "bench/bench_common.h"
#include "bench/large_model_bench.h"
#include "bench/random_checkpoint.h"
#include "bench/timing_backend.h"
#include "core/model/forward.h"
#include "core/train/trainer.h"
#include "core/util/memory.h"
#include "gpu/backend_factory.h"

namespace {

using qkv::bench::Clock;
using qkv::bench::median;
using qkv::bench::peakRss;
using qkv::bench::resetPeak;
using qkv::bench::seconds;
using qkv::bench::sgemmGflops;
using qkv::bench::TemporaryFolder;

// Floating-point operations of the forward (GEMMs and attention products; element-wise work
// is negligible): per layer 24 n d^2 + 4 n^2 d, plus the logits of the last position.
double forwardFlops(const qkv::train::ModelShape& s, int n) {
    const double d = s.dModel;
    return s.layers * (24.0 * n * d * d + 4.0 * n * n * d) + 2.0 * d * s.vocab;
}

// Removed on scope exit, also when the benchmark fails half-way.

struct Options {
    std::vector<int> tokens = {16, 64, 256, 1024};
    std::vector<std::string> backends = {"cpu"};
    int repeats = 5;
    int rounds = 3;  // qkvlab then PyTorch, alternated: load that drifts hits both sides alike
    bool torch = true;
    bool train = true;
    bool profile = false;  // print where the forward's time goes, per backend operation
    std::string python = "/usr/bin/python3";
    std::string checkpoint;                     // reuse instead of writing a new one
    std::string shape = "gpt2";                 // or llama3-8b (bench/large_model_bench.h)
    int vocab = qkv::bench::gpt2Small().vocab;  // smaller for devices that cannot hold wte whole
};

Options parseOptions(int argc, char** argv) {
    Options o;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        auto next = [&]() -> std::string {
            if (i + 1 >= argc) throw qkv::Error(arg + " needs a value");
            return argv[++i];
        };
        if (arg == "--backend") {
            const std::string b = next();
            if (b != "cpu") o.backends.push_back(b);
        } else if (arg == "--tokens") {
            o.tokens.clear();
            std::stringstream list(next());
            for (std::string item; std::getline(list, item, ',');)
                o.tokens.push_back(std::stoi(item));
        } else if (arg == "--repeats") {
            o.repeats = std::max(1, std::stoi(next()));
        } else if (arg == "--rounds") {
            o.rounds = std::max(1, std::stoi(next()));
        } else if (arg == "--profile") {
            o.profile = true;
        } else if (arg == "--no-torch") {
            o.torch = false;
        } else if (arg == "--no-train") {
            o.train = false;
        } else if (arg == "--python") {
            o.python = next();
        } else if (arg == "--checkpoint") {
            o.checkpoint = next();
        } else if (arg == "--shape") {
            o.shape = next();
            if (o.shape != "gpt2" && o.shape != "llama3-8b")
                throw qkv::Error("--shape is gpt2 or llama3-8b");
        } else if (arg == "--vocab") {
            o.vocab = std::clamp(std::stoi(next()), 256, 1 << 20);
        } else {
            throw qkv::Error(
                "usage: qkvlab-bench [--backend vulkan] [--tokens 16,64,256,1024] "
                "[--repeats N] [--rounds N] [--no-torch] [--no-train] [--profile] [--python PATH] "
                "[--checkpoint DIR] [--vocab N] [--shape gpt2|llama3-8b]");
        }
    }
    return o;
}

struct BackendRun {
    std::string name;
    std::vector<double> forwardSeconds;  // per token count
    std::vector<std::uint64_t> peakRss;  // per token count, since the previous reset
    double bindSeconds = 0;              // weight upload
};

// One round's measurements of every backend (a backend that cannot run the model is skipped
// with its reason) and of PyTorch.
struct Round {
    std::vector<BackendRun> runs;
    std::vector<std::string> skipped;
    nlohmann::json torch;
};

BackendRun measureBackend(const std::string& choice, const qkv::Model& model, const Options& o) {
    auto backend = qkv::createBackend(choice);
    BackendRun run{backend->name(), {}, {}, 0};
    auto start = Clock::now();
    qkv::ForwardPass pass(model, *backend);
    run.bindSeconds = seconds(start);
    std::mt19937 engine(1);
    for (int n : o.tokens) {
        qkv::ForwardRequest request;
        std::uniform_int_distribution<int> id(0, model.architecture().vocabSize - 1);
        for (int i = 0; i < n; ++i) request.ids.push_back(id(engine));
        resetPeak();
        pass.run(request);  // warm-up (and first touch of the mapped weights)
        std::vector<double> times;
        for (int r = 0; r < o.repeats; ++r) {
            start = Clock::now();
            pass.run(request);
            times.push_back(seconds(start));
        }
        run.forwardSeconds.push_back(median(times));
        run.peakRss.push_back(peakRss());
    }
    return run;
}

// One forward per token count through a TimingBackend: seconds per backend operation.
void printProfile(const std::string& choice, const qkv::Model& model, const Options& o) {
    qkv::bench::TimingBackend backend(qkv::createBackend(choice));
    qkv::ForwardPass pass(model, backend);
    std::printf("\nwhere the time goes [%s] (ms per forward, each op synchronised)\n",
                backend.name().c_str());
    for (int n : o.tokens) {
        qkv::ForwardRequest request;
        request.ids.assign(n, 1);
        pass.run(request);
        backend.reset();
        pass.run(request);
        std::printf("  %5d tok:", n);
        for (const auto& [op, s] : backend.seconds()) std::printf("  %s %.1f", op.c_str(), s * 1e3);
        std::printf("\n");
    }
}

nlohmann::json runTorch(const Options& o, const std::string& dir, const std::string& script) {
    std::string tokens;
    for (int n : o.tokens) tokens += (tokens.empty() ? "" : ",") + std::to_string(n);
    const std::string command = o.python + " " + script + " " + dir + " --tokens " + tokens +
                                " --repeats " + std::to_string(o.repeats) + " 2>&1";
    return qkv::bench::runReferenceScript(command);
}

std::string ms(double s) {
    char text[32];
    std::snprintf(text, sizeof text, s < 0.01 ? "%.2f ms" : "%.1f ms", s * 1e3);
    return text;
}

std::string verdict(bool ok) { return ok ? "met" : "MISSED"; }

// value / reference in `format`, or "-" without a reference.
std::string ratio(double value, double reference, const char* format) {
    if (reference <= 0) return "-";
    char text[32];
    std::snprintf(text, sizeof text, format, value / reference);
    return text;
}

// Training steps of the shipped defaults' shape (4 layers, 4 heads, d_model 128, context 128,
// their 706-token vocabulary, batches of 16) under each tying, on every core.
void printTraining(double peakGflops) {
    std::printf(
        "\nTraining lab: default model shape (4 layers, 4 heads, d_model 128, context 128, "
        "vocab 706, batch 16 x 128 tokens), every core\n");
    std::printf("%-34s %14s %14s %8s\n", "tying", "tokens/s", "GFLOP/s", "of SGEMM");
    for (const char* tying : qkv::train::AttentionTying::names()) {
        std::cerr << "measuring training throughput (" << tying << ") ...\n";
        qkv::train::TrainingOptions options;
        options.shape.vocab = 706;
        options.shape.tying = qkv::train::AttentionTying::parse(tying);
        qkv::train::trainSteps(options, 2);  // warm-up: thread pool, first touch
        const auto r = qkv::train::trainSteps(options, 20);
        std::printf("%-34s %14.0f %14.1f %7.0f%%\n", ("train " + std::string(tying)).c_str(),
                    r.tokensPerSecond, r.gflopsPerSecond, 100.0 * r.gflopsPerSecond / peakGflops);
    }
}

}  // namespace

int main(int argc, char** argv) {
    qkv::keepFreedMemoryForReuse();  // as the app and the CLI do
    try {
        const Options o = parseOptions(argc, argv);
        if (o.shape == "llama3-8b") {
            qkv::bench::LargeModelOptions large;
            large.checkpoint = o.checkpoint;
            large.python = o.python;
            large.torch = o.torch;
            large.tokens = o.tokens.size() == 1 ? o.tokens.front() : 64;
            return qkv::bench::runLargeModelBench(large);
        }
        qkv::train::ModelShape shape = qkv::bench::gpt2Small();
        shape.vocab = o.vocab;
        const std::string script = std::string(QKV_BENCH_SOURCE_DIR) + "/torch_reference.py";
        std::string dir = o.checkpoint;
        TemporaryFolder temporary;
        if (dir.empty()) {
            temporary.path = std::filesystem::temp_directory_path() /
                             ("qkvlab-bench-" + std::to_string(std::random_device()()));
            std::cerr << "writing a GPT-2-small-shaped random checkpoint to " << temporary.path
                      << " ...\n";
            qkv::bench::writeRandomGpt2(temporary.path, shape, 42);
            dir = temporary.path.string();
        }

        std::cerr << "measuring SGEMM throughput ...\n";
        double peakGflops = sgemmGflops();

        std::cerr << "measuring open time ...\n";
        std::vector<double> openTimes;
        for (int r = 0; r < 5; ++r) {
            const auto start = Clock::now();
            auto m = qkv::Model::open(dir);
            openTimes.push_back(seconds(start));
        }
        const double openSeconds = median(openTimes);

        double weightBytes = 0;
        std::vector<Round> rounds(o.rounds);
        for (int r = 0; r < o.rounds; ++r) {
            Round& round = rounds[r];
            if (r > 0) peakGflops = std::max(peakGflops, sgemmGflops());
            const std::string label =
                "round " + std::to_string(r + 1) + "/" + std::to_string(o.rounds) + ": ";
            resetPeak();
            auto model = qkv::Model::open(dir);
            weightBytes = static_cast<double>(model->weightBytes());
            for (const auto& b : o.backends) {
                std::cerr << label << "measuring forward with capture on " << b << " ...\n";
                try {
                    round.runs.push_back(measureBackend(b, *model, o));
                } catch (const qkv::Error& e) {
                    round.skipped.push_back(b + ": " + e.what());
                }
            }
            model.reset();
            if (o.torch) {
                std::cerr << label << "running the PyTorch reference ...\n";
                round.torch = runTorch(o, dir, script);
            }
        }
        const nlohmann::json& torch = rounds.front().torch;
        const std::vector<std::string>& skipped = rounds.front().skipped;
        // Values of one measure in every round (each side's median is taken over these).
        auto acrossRounds = [&](const auto& value) {
            std::vector<double> values;
            for (const Round& round : rounds) values.push_back(value(round));
            return values;
        };
        auto torchSecondsIn = [](const Round& round, int n) -> double {
            if (round.torch.empty()) return 0;
            return round.torch["forward_seconds"].value(std::to_string(n), 0.0);
        };

        std::printf(
            "\nQKV Lab benchmark: GPT-2-small-shaped random checkpoint (%d layers, %d heads, "
            "d_model %d, vocab %d), %.1f MB float32\n",
            shape.layers, shape.heads, shape.dModel, shape.vocab, weightBytes / 1e6);
        std::printf(
            "Forward with capture = all layers, every head's scores and probabilities kept, "
            "logits of the last position.\n");
        std::printf(
            "Physical limit: OpenBLAS SGEMM 768x768x768 on every core = %.1f GFLOP/s (best window "
            "of all rounds).\n",
            peakGflops);
        if (!torch.empty())
            std::printf("PyTorch %s, %d threads (same weights, same work, same invocation).\n\n",
                        torch.value("torch", "?").c_str(), torch.value("threads", 0));
        else
            std::printf("PyTorch reference not run.\n\n");

        std::printf(
            "Times: median of %d repeats after a warm-up, then the median over %d rounds "
            "(qkvlab, then PyTorch, alternated); ratio: the median of the rounds' ratios.\n\n",
            o.repeats, o.rounds);
        std::printf("%-34s %14s %12s %8s   %s\n", "measure", "qkvlab", "PyTorch", "ratio",
                    "target");
        const double torchLoad = median(acrossRounds([](const Round& r) {
            return r.torch.empty() ? 0.0 : r.torch.value("load_seconds", 0.0);
        }));
        std::printf("%-34s %14s %12s %8s   <= 0.05x PyTorch load: %s\n", "open checkpoint",
                    ms(openSeconds).c_str(), torch.empty() ? "-" : ms(torchLoad).c_str(),
                    ratio(openSeconds, torchLoad, "%.4f").c_str(),
                    torchLoad > 0 ? verdict(openSeconds <= 0.05 * torchLoad).c_str() : "-");
        for (size_t b = 0; b < rounds.front().runs.size(); ++b) {
            const std::string& name = rounds.front().runs[b].name;
            auto forwardSeconds = [&](size_t i) {
                return median(
                    acrossRounds([&](const Round& r) { return r.runs[b].forwardSeconds[i]; }));
            };
            const double bindSeconds =
                median(acrossRounds([&](const Round& r) { return r.runs[b].bindSeconds; }));
            if (bindSeconds > 0.001)
                std::printf("%-34s %14s\n", ("bind weights [" + name + "]").c_str(),
                            ms(bindSeconds).c_str());
            for (size_t i = 0; i < o.tokens.size(); ++i) {
                const int n = o.tokens[i];
                const double t = forwardSeconds(i);
                const double ref =
                    median(acrossRounds([&](const Round& r) { return torchSecondsIn(r, n); }));
                std::string value = "-", target = "-";
                if (ref > 0) {
                    const auto ratios = acrossRounds([&](const Round& r) {
                        return r.runs[b].forwardSeconds[i] / torchSecondsIn(r, n);
                    });
                    value = ratio(median(ratios), 1.0, "%.3f");
                    if ((n == 64 || n == 256) && name == "cpu")
                        target = "<= 0.4x PyTorch: " + verdict(median(ratios) <= 0.4);
                    if (ratios.size() > 1) {
                        target += "  (rounds:";
                        for (double x : ratios) target += " " + ratio(x, 1.0, "%.3f");
                        target += ")";
                    }
                }
                std::printf(
                    "%-34s %14s %12s %8s   %s\n",
                    ("forward+capture " + std::to_string(n) + " tok [" + name + "]").c_str(),
                    ms(t).c_str(), ref > 0 ? ms(ref).c_str() : "-", value.c_str(), target.c_str());
            }
            for (size_t i = 0; i < o.tokens.size(); ++i) {
                const int n = o.tokens[i];
                const double rate = forwardFlops(shape, n) / forwardSeconds(i) / 1e9;
                std::string target = "-";
                if (n == 256 && name == "cpu")
                    target = ">= 60% of SGEMM: " + verdict(rate >= 0.6 * peakGflops);
                char value[64];
                std::snprintf(value, sizeof value, "%.1f GFLOP/s", rate);
                std::printf("%-34s %14s %12s %7.0f%%   %s\n",
                            ("throughput " + std::to_string(n) + " tok [" + name + "]").c_str(),
                            value, "", 100.0 * rate / peakGflops, target.c_str());
            }
            for (size_t i = 0; i < o.tokens.size(); ++i) {
                const int n = o.tokens[i];
                const double traceBytes = 2.0 * shape.layers * shape.heads * n * n * 4;
                const auto peaks = acrossRounds(
                    [&](const Round& r) { return static_cast<double>(r.runs[b].peakRss[i]); });
                const double peak = *std::max_element(peaks.begin(), peaks.end());
                char value[32], note[96];
                std::snprintf(value, sizeof value, "%.0f MB", peak / 1e6);
                std::snprintf(note, sizeof note, "%.2fx weights (trace %.0f MB)",
                              peak / weightBytes, traceBytes / 1e6);
                std::printf("%-34s %14s %12s %8s   %s\n",
                            ("peak RSS " + std::to_string(n) + " tok [" + name + "]").c_str(),
                            value, "", "", note);
            }
        }
        for (const auto& reason : skipped) std::printf("not measured: %s\n", reason.c_str());
        if (o.train) printTraining(peakGflops);
        if (o.profile) {
            auto profiled = qkv::Model::open(dir);
            for (const auto& b : o.backends) printProfile(b, *profiled, o);
        }
        return 0;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "qkvlab-bench: error: %s\n", e.what());
        return 1;
    }
}
