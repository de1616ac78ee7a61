#include "bench/gpt_oss_bench.h"

#include <cstdio>
#include <iostream>

#include "bench/bench_common.h"
#include "bench/child_stage.h"
#include "bench/large_model_bench.h"
#include "bench/random_checkpoint.h"
#include "core/model/forward.h"
#include "core/model/model_family.h"

namespace qkv::bench {

int runGptOssBench(const LargeModelOptions& o) {
    TemporaryFolder temporary;
    const std::string dir = checkpointFolder(
        o.checkpoint, "gpt-oss-20b-shaped MXFP4 (13 GB)",
        [](const std::filesystem::path& folder) { writeRandomGptOssMxfp4(folder, 42); }, temporary);
    const Architecture shape = loadArchitecture(std::filesystem::path(dir) / "config.json");
    const std::vector<int> ids = randomIds(o.tokens, shape.vocabSize);

    std::cerr << "open + info ...\n";
    const Stage info = openStage(dir);
    std::cerr << "analyze every head ...\n";
    const Stage analyze = inChild([&] { return analysisSeconds(dir, false); });
    std::cerr << "forward + capture of every head at " << o.tokens << " tokens ...\n";
    ForwardRequest request;
    request.ids = ids;
    request.logits = LogitsMode::None;
    const Stage forward = inChild([&] { return cachedForwardSeconds(dir, request); });

    std::cerr << "measuring SGEMM throughput ...\n";
    const double gflops = sgemmGflops();
    const double active = activeParameters(shape);
    const double ideal = 2.0 * active * o.tokens / (gflops * 1e9);
    std::printf(
        "\ngpt-oss-20b shape (MXFP4 experts: 24 layers, 64 query / 8 KV heads, 32 experts, 4 per "
        "token; %.2fB parameters used per token), %d tokens\n",
        active / 1e9, o.tokens);
    std::printf("SGEMM %.1f GFLOP/s: 2 * used parameters * tokens takes %.2f s at that rate\n",
                gflops, ideal);
    std::printf(
        "peak anonymous memory: RssAnon sampled every 10 ms (the mapped weights are "
        "file pages, not counted)\n\n");
    printRow("open + info", info, 1.0, 200'000'000);
    const std::string heads = std::to_string(shape.layers * shape.heads) + " heads";
    printRow(("analyze " + heads).c_str(), analyze, 90.0, 3'000'000'000);
    char note[96];
    std::snprintf(note, sizeof note, "  (%.2fx the SGEMM time)", forward.seconds / ideal);
    printRow(("forward + capture " + heads).c_str(), forward, 1.5 * ideal, 3'000'000'000, note);
    return info.error.empty() && analyze.error.empty() && forward.error.empty() ? 0 : 1;
}

}  // namespace qkv::bench
