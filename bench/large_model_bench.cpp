#include "bench/large_model_bench.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>

#include "bench/bench_common.h"
#include "bench/child_stage.h"
#include "bench/random_checkpoint.h"
#include "core/analysis/head_metrics.h"
#include "core/model/forward.h"

namespace qkv::bench {
namespace {

// Seconds of the forward that PyTorch (bfloat16, the same weights) needs, the best of as many
// after a first as qkvlab's (cachedForwardSeconds); < 0 when it failed.
double torchForward(const LargeModelOptions& o, const std::string& dir) {
    const std::string script = std::string(QKV_BENCH_SOURCE_DIR) + "/torch_llama.py";
    const std::string command = o.python + " " + script + " " + dir + " --tokens " +
                                std::to_string(o.tokens) + " --repeats " +
                                std::to_string(kCachedForwards) + " 2>&1";
    const nlohmann::json result = runReferenceScript(command);
    return result.is_object()
               ? result.at("forward_seconds").at(std::to_string(o.tokens)).get<double>()
               : -1.0;
}

}  // namespace

double analysisSeconds(const std::string& location, bool copyingScores) {
    auto model = Model::open(location);
    const auto start = Clock::now();
    analyzeModel(*model, WConfiguration{}, nullptr, nullptr,
                 [](int done, int total) {
                     std::cerr << "\r  layer " << done << " of " << total << std::flush;
                 },
                 {.copyingScores = copyingScores});
    std::cerr << "\n";
    return seconds(start);
}

Stage openStage(const std::string& location) {
    return inChild([&] {
        const auto start = Clock::now();
        auto model = Model::open(location);
        const std::uint64_t parameters = model->parameterCount();  // what info prints
        return parameters > 0 ? seconds(start) : -1.0;
    });
}

double activeParameters(const Architecture& c) {
    const double d = c.dModel, q = double(c.heads) * c.headDim, kv = double(c.kvHeads) * c.headDim;
    return c.layers *
           (2 * d * q + 2 * d * kv + d * c.moe.experts + c.moe.perToken * 3.0 * d * c.moe.width);
}

LargeModelStages measureLargeModel(const std::string& location, const Architecture& shape,
                                   int tokens, bool copyingScores) {
    LargeModelStages out;
    const std::vector<int> ids = randomIds(tokens, shape.vocabSize);
    std::cerr << "open + info ...\n";
    out.info = openStage(location);
    std::cerr << "analyze every head ...\n";
    // The W_QK and OV metrics of every head; the OV copying score's W_U W_E product over a 128k
    // vocabulary (4 TFLOP) is left out, as survey/analyze --no-copying-score does.
    out.analyze = inChild([&] { return analysisSeconds(location, false); });
    std::cerr << "forward + capture of one head at " << tokens << " tokens ...\n";
    ForwardRequest request;
    request.ids = ids;
    request.capture.layer = 0;
    request.capture.head = 0;
    request.logits = LogitsMode::None;  // as the app's Head view
    out.forward = inChild([&] { return cachedForwardSeconds(location, request); });

    if (copyingScores) {
        // After the forward, whose weights they would push out of the page cache: the copying
        // scores too, first with an empty round-trip cache (W_U W_E computed and
        // written), then reading what that run kept.
        TemporaryFolder cache{std::filesystem::temp_directory_path() / "qkvlab-bench-cache"};
        std::filesystem::remove_all(cache.path);
        std::filesystem::create_directories(cache.path);
        setenv("XDG_CACHE_HOME", cache.path.c_str(), 1);
        std::cerr << "analyze every head with copying scores, empty cache ...\n";
        out.copyingCold = inChild([&] { return analysisSeconds(location, true); });
        std::cerr << "analyze every head with copying scores, cached W_U W_E ...\n";
        out.copyingCached = inChild([&] { return analysisSeconds(location, true); });
        unsetenv("XDG_CACHE_HOME");
    }
    std::cerr << "measuring SGEMM throughput ...\n";
    out.gflops = sgemmGflops();
    out.parameters =
        static_cast<double>(shape.layers) *
            (2.0 * shape.dModel * shape.heads * shape.headDim +
             2.0 * shape.dModel * shape.kvHeads * shape.headDim + 3.0 * shape.dModel * shape.dFF) +
        2.0 * shape.vocabSize * shape.dModel;
    out.ideal = 2.0 * out.parameters * tokens / (out.gflops * 1e9);
    return out;
}

int runLargeModelBench(const LargeModelOptions& o) {
    const Architecture shape = llama3_8b();
    TemporaryFolder temporary;
    const std::string dir =
        llamaCheckpointFolder(o.checkpoint, shape, "Llama-3-8B-shaped (16 GB)", temporary);
    const LargeModelStages s = measureLargeModel(dir, shape, o.tokens, true);
    double torchSeconds = -1;
    if (o.torch) {
        std::cerr << "PyTorch bfloat16 forward ...\n";
        torchSeconds = torchForward(o, dir);
    }

    std::printf(
        "\nLlama-3-8B shape (%.2fB parameters, bf16, 32 layers, 32 query / 8 KV heads), "
        "%d tokens\n",
        s.parameters / 1e9, o.tokens);
    std::printf("SGEMM %.1f GFLOP/s: 2 * params * tokens takes %.2f s at that rate\n", s.gflops,
                s.ideal);
    std::printf(
        "peak anonymous memory: RssAnon sampled every 10 ms (the mapped weights are "
        "file pages, not counted)\n\n");
    const int heads = shape.layers * shape.heads;
    printRow("open + info", s.info, 0.5, 200'000'000);
    printRow(("analyze " + std::to_string(heads) + " heads").c_str(), s.analyze, 60.0,
             2'000'000'000);
    printRow("analyze + copying scores, no cache", s.copyingCold, 90.0, 2'000'000'000);
    printRow("analyze + copying scores, cached", s.copyingCached, 60.0, 2'000'000'000);
    char note[96];
    std::snprintf(note, sizeof note, "  (%.2fx the SGEMM time)", s.forward.seconds / s.ideal);
    printRow("forward + capture one head", s.forward, 1.5 * s.ideal, 3'000'000'000, note);
    if (torchSeconds > 0)
        std::printf("%-38s %9.2f s   qkvlab / PyTorch = %.3f\n", "PyTorch bfloat16 forward",
                    torchSeconds, s.forward.seconds / torchSeconds);
    else if (o.torch)
        std::printf("%-38s failed (see above)\n", "PyTorch bfloat16 forward");
    return s.info.error.empty() && s.analyze.error.empty() && s.forward.error.empty() &&
                   s.copyingCold.error.empty() && s.copyingCached.error.empty()
               ? 0
               : 1;
}

}  // namespace qkv::bench
