#include "bench/gguf_bench.h"

#include <cstdio>
#include <filesystem>

#include "bench/bench_common.h"
#include "bench/random_checkpoint.h"
#include "bench/random_gguf.h"

namespace qkv::bench {

int runGgufBench(const LargeModelOptions& o) {
    const Architecture shape = llama3_8b();
    TemporaryFolder temporary;
    const std::filesystem::path file = checkpointFile(
        o.checkpoint, "llama3.1-8b-shaped-Q4_K_M.gguf", "Llama-3.1-8B-shaped Q4_K_M GGUF (4.9 GB)",
        [&](const std::filesystem::path& path) { writeRandomLlamaGguf(path, shape, 42); },
        temporary);
    const LargeModelStages s = measureLargeModel(file.string(), shape, o.tokens);

    std::printf(
        "\nLlama-3.1-8B shape as a Q4_K_M GGUF (%.2fB parameters, %.2f GB, 32 layers, 32 query / "
        "8 KV heads), %d tokens\n",
        s.parameters / 1e9, std::filesystem::file_size(file) / 1e9, o.tokens);
    std::printf("SGEMM %.1f GFLOP/s: 2 * params * tokens takes %.2f s at that rate\n", s.gflops,
                s.ideal);
    std::printf(
        "peak anonymous memory: RssAnon sampled every 10 ms (the mapped file is file pages, not "
        "counted)\n\n");
    constexpr std::uint64_t kAnon = 3'000'000'000;
    printRow("open + info", s.info, 0.5, kAnon);
    printRow(("analyze " + std::to_string(shape.layers * shape.heads) + " heads").c_str(),
             s.analyze, 90.0, kAnon);
    char note[96];
    std::snprintf(note, sizeof note, "  (%.2fx the SGEMM time)", s.forward.seconds / s.ideal);
    printRow("forward + capture one head", s.forward, 2.0 * s.ideal, kAnon, note);
    return s.info.error.empty() && s.analyze.error.empty() && s.forward.error.empty() ? 0 : 1;
}

}  // namespace qkv::bench
