// qkvlab-bench: speed and memory of the forward pass with attention capture on a
// GPT-2-small-shaped checkpoint, with ratios against references measured in the same
// invocation: the machine's SGEMM throughput (the physical limit) and a plain PyTorch forward;
// keystrokes and a long input as the app computes them; then the training lab's throughput.
// Its parts: the options (bench_options), one round's measurements (forward_bench, keystroke_bench)
// and their rows (forward_table), the long input (long_input_bench), training (training_bench),
// the table and its JSON (bench_report), the checkpoint (random_checkpoint).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "bench/app_requests.h"
#include "bench/atlas_bench.h"
#include "bench/bench_common.h"
#include "bench/bench_options.h"
#include "bench/bench_report.h"
#include "bench/cli_output_bench.h"
#include "bench/deepseek_v32_bench.h"
#include "bench/forward_bench.h"
#include "bench/forward_table.h"
#include "bench/gguf_bench.h"
#include "bench/gpt_oss_bench.h"
#include "bench/large_model_bench.h"
#include "bench/llama_forward_bench.h"
#include "bench/long_input_bench.h"
#include "bench/qwen3_5_bench.h"
#include "bench/qwen3_moe_bench.h"
#include "bench/random_checkpoint.h"
#include "bench/timing_backend.h"
#include "bench/training_bench.h"
#include "core/model/forward.h"
#include "core/util/memory.h"
#include "gpu/backend_factory.h"

namespace {

using namespace qkv::bench;

// One forward per token count through a TimingBackend: milliseconds per backend operation; also
// the app's request where it captures one head only (as the one-head rows time it).
ReportTable profileTable(const std::string& choice, const qkv::Model& model, const Options& o) {
    TimingBackend backend(qkv::createBackend(choice));
    qkv::ForwardPass pass(model, backend);
    ReportTable table{
        "where the time goes [" + backend.name() + "] (ms per forward, each op synchronised)",
        {"tokens", "", "", "", "ms per operation"},
        {}};
    auto profile = [&](const qkv::ForwardRequest& request, const std::string& label) {
        pass.run(request);
        backend.reset();
        const auto start = std::chrono::steady_clock::now();
        pass.run(request);
        // Time outside the backend's operations: the trace's host side, capture copies, waits.
        double outside =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        for (const auto& [op, s] : backend.seconds()) outside -= s;
        std::map<std::string, double> seconds = backend.seconds();
        seconds["(outside the backend)"] = outside;
        std::string ops;
        Json figures = Json::object();
        for (const auto& [op, s] : seconds) {
            char text[64];
            std::snprintf(text, sizeof text, "%s%s %.1f", ops.empty() ? "" : "  ", op.c_str(),
                          s * 1e3);
            ops += text;
            figures[op] = s * 1e3;
        }
        table.rows.push_back({label, "", "", "", ops, {{"ms", figures}}});
    };
    for (int n : o.tokens) {
        qkv::ForwardRequest request;
        request.ids.assign(n, 1);
        profile(request, std::to_string(n) + " tok");
        const qkv::ForwardRequest app = appRequest(model.architecture(), request.ids);
        if (capturesOneHead(app)) profile(app, std::to_string(n) + " tok, one head");
    }
    return table;
}

nlohmann::json runTorch(const Options& o, const std::string& dir, const std::string& script) {
    std::string tokens;
    for (int n : o.torchTokens()) tokens += (tokens.empty() ? "" : ",") + std::to_string(n);
    const std::string command = o.python + " " + script + " " + dir + " --tokens " + tokens +
                                " --repeats " + std::to_string(o.repeats) + " 2>&1";
    return runReferenceScript(command);
}

// The report's text before the tables, and its summary for --json.
void describeRun(const Options& o, const qkv::train::ModelShape& shape, double weightBytes,
                 double peakGflops, const nlohmann::json& torch, Report& report) {
    auto line = [&](const char* format, auto... values) {
        char text[512];
        std::snprintf(text, sizeof text, format, values...);
        report.preamble.push_back(text);
    };
    line(
        "\nQKV Lab benchmark: GPT-2-small-shaped random checkpoint (%d layers, %d heads, "
        "d_model %d, vocab %d, %d positions), %.1f MB float32",
        shape.layers, shape.heads, shape.dModel, shape.vocab, shape.context, weightBytes / 1e6);
    line(
        "Forward with capture = all layers, every head's scores and probabilities kept, logits "
        "of the last position.");
    line(
        "One head, keystroke, long input = the app's request: no logits; every head captured "
        "while all fit its capture budget, else one (layer 0, head 0).");
    line(
        "Keystroke = the last token changed, through a ReusingForward kept across keystrokes: "
        "median of %d after a warm-up, per round.",
        o.keystrokes);
    line(
        "Physical limit: OpenBLAS SGEMM 768x768x768 on every core = %.1f GFLOP/s (best window "
        "of all rounds).",
        peakGflops);
    if (!torch.empty())
        line(
            "PyTorch %s, %d threads (same weights, every head's probabilities returned, logits "
            "of the last position; same invocation).",
            torch.value("torch", "?").c_str(), torch.value("threads", 0));
    else
        line("PyTorch reference not run.");
    line(
        "\nTimes: median of %d repeats after a warm-up, then the median over %d rounds (qkvlab, "
        "then PyTorch, alternated); ratio: the median of the rounds' ratios.",
        o.repeats, o.rounds);
    report.summary["model"] = {{"layers", shape.layers},     {"heads", shape.heads},
                               {"d_model", shape.dModel},    {"vocab", shape.vocab},
                               {"positions", shape.context}, {"weights_mb", weightBytes / 1e6}};
    report.summary["sgemm_gflops"] = peakGflops;
    report.summary["torch"] = torch.empty() ? Json()
                                            : Json{{"version", torch.value("torch", "?")},
                                                   {"threads", torch.value("threads", 0)}};
    report.summary["repeats"] = o.repeats;
    report.summary["rounds"] = o.rounds;
    report.summary["keystrokes"] = o.keystrokes;
}

}  // namespace

int main(int argc, char** argv) {
    qkv::keepFreedMemoryForReuse();  // as the app and the CLI do
    try {
        const Options o = parseOptions(argc, argv);
        if (o.help) {
            std::printf("%s\n", usage());
            return 0;
        }
        if (!o.longInputChild.empty())
            return runLongInputChild(o.longInputChild, o.longTokens, o.longRepeats);
        if (o.shape == "llama3-8b" || o.shape == "gpt-oss-20b" || o.shape == "llama3.1-8b-gguf" ||
            o.shape == "qwen3-30b-a3b-gguf" || o.shape == "qwen3.5-9b" ||
            o.shape == "deepseek-v3.2") {
            LargeModelOptions large;
            large.checkpoint = o.checkpoint;
            large.python = o.python;
            large.torch = o.torch;
            large.tokens = o.tokens.size() == 1 ? o.tokens.front() : 64;
            if (o.shape == "deepseek-v3.2")
                return runDeepSeekV32Bench({.checkpoint = o.checkpoint,
                                            .tokens = o.tokens.size() == 1 ? o.tokens.front() : 4},
                                           o.analysis);
            if (o.shape == "gpt-oss-20b") return runGptOssBench(large);
            if (o.shape == "qwen3.5-9b") return runQwen35Bench(large, o.longTokens);
            if (o.shape == "qwen3-30b-a3b-gguf") return runQwen3MoeBench(large);
            return o.shape == "llama3.1-8b-gguf" ? runGgufBench(large) : runLargeModelBench(large);
        }
        if (o.shape == "atlas") {
            AtlasBenchOptions atlas;
            atlas.checkpoint = o.checkpoint;
            atlas.python = o.python;
            atlas.torch = o.torch;
            atlas.tokens = o.atlasTokens;
            atlas.large = o.large;
            return runAtlasBench(atlas);
        }
        if (o.shape == "llama3.2-1b") {
            LlamaForwardOptions llama;
            llama.checkpoint = o.checkpoint;
            llama.python = o.python;
            llama.torch = o.torch;
            if (o.tokens != Options{}.tokens) llama.tokens = o.tokens;
            llama.rounds = o.rounds;
            return runLlamaForwardBench(llama);
        }
        qkv::train::ModelShape shape = gpt2Small();
        shape.vocab = o.vocab;
        const std::string script = std::string(QKV_BENCH_SOURCE_DIR) + "/torch_reference.py";
        std::string dir = o.checkpoint;
        TemporaryFolder temporary;
        if (dir.empty()) {
            temporary.path = std::filesystem::temp_directory_path() /
                             ("qkvlab-bench-" + std::to_string(std::random_device()()));
            std::cerr << "writing a GPT-2-small-shaped random checkpoint to " << temporary.path
                      << " ...\n";
            writeRandomGpt2(temporary.path, shape, 42);
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
                std::cerr << label << "measuring forward with capture and keystrokes on " << b
                          << " ...\n";
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

        Report report;
        describeRun(o, shape, weightBytes, peakGflops, rounds.front().torch, report);
        report.notMeasured = rounds.front().skipped;
        ReportTable table{"", {"measure", "qkvlab", "PyTorch", "ratio", "target"}, {}};
        const double torchLoad = median(acrossRounds(rounds, [](const Round& r) {
            return r.torch.empty() ? 0.0 : r.torch.value("load_seconds", 0.0);
        }));
        table.rows.push_back(
            {"open checkpoint",
             ms(openSeconds),
             torchLoad > 0 ? ms(torchLoad) : "-",
             ratio(openSeconds, torchLoad, "%.4f"),
             torchLoad > 0 ? "<= 0.05x PyTorch load: " + verdict(openSeconds <= 0.05 * torchLoad)
                           : "-",
             {{"ms", openSeconds * 1e3}, {"torch_load_ms", torchLoad * 1e3}}});
        addForwardRows({rounds, o, shape, peakGflops, weightBytes}, table, report.summary);
        if (o.longTokens > 0) {
            std::cerr << "measuring a long input (" << o.longTokens
                      << " tokens) in a process of its own ...\n";
            addLongInputRows(measureLongInput(dir, o.longTokens, o.longRepeats), shape, table,
                             report.summary, report.notMeasured);
            std::cerr << "measuring qkvlab-cli attention's outputs at " << o.longTokens
                      << " tokens ...\n";
            addCliOutputRows(measureCliOutputs(dir, o.longTokens, shape.vocab), table,
                             report.summary, report.notMeasured);
        }
        report.tables.push_back(std::move(table));
        if (o.train) report.tables.push_back(trainingTable(peakGflops));
        if (o.profile) {
            auto profiled = qkv::Model::open(dir);
            for (const auto& b : o.backends) report.tables.push_back(profileTable(b, *profiled, o));
        }
        if (o.json)
            std::printf("%s\n", toJson(report).dump(2).c_str());
        else
            printText(report);
        return 0;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "qkvlab-bench: error: %s\n", e.what());
        return 1;
    }
}
