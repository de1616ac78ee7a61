#include "bench/qwen3_moe_bench.h"

#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "bench/bench_common.h"
#include "bench/child_stage.h"
#include "bench/page_residency.h"
#include "bench/random_checkpoint.h"
#include "bench/random_gguf.h"
#include "core/model/forward.h"

namespace qkv::bench {
namespace {

// Bytes this machine has read from storage since it started (/proc/vmstat's pgpgin, in KiB).
std::uint64_t bytesReadFromStorage() {
    std::ifstream vmstat("/proc/vmstat");
    std::string key;
    std::uint64_t value = 0;
    while (vmstat >> key >> value)
        if (key == "pgpgin") return value * 1024;
    return 0;
}

// This machine's sequential read rate from storage, in bytes a second: 2 GB of the file read
// from its middle, out of the page cache, in 16 MB reads.
double storageBytesPerSecond(const std::filesystem::path& file) {
    evictFromPageCache(file);
    const int fd = ::open(file.c_str(), O_RDONLY);
    if (fd < 0) return 0;
    constexpr std::size_t kChunk = 16 << 20, kTotal = std::size_t{2} << 30;
    std::vector<char> buffer(kChunk);
    const auto offset = static_cast<off_t>(std::filesystem::file_size(file) / 2);
    const auto start = Clock::now();
    std::size_t done = 0;
    while (done < kTotal) {
        const ssize_t n = ::pread(fd, buffer.data(), kChunk, offset + static_cast<off_t>(done));
        if (n <= 0) break;
        done += static_cast<std::size_t>(n);
    }
    const double elapsed = seconds(start);
    ::close(fd);
    evictFromPageCache(file);
    return elapsed > 0 ? done / elapsed : 0;
}

struct ColdForward {
    Stage stage;
    double gigabytesRead = 0;
};

ColdForward measureColdForward(const std::filesystem::path& file, int tokens, int vocab) {
    std::cerr << "forward + capture of every head at " << tokens << " tokens, from storage ...\n";
    const std::uint64_t before = bytesReadFromStorage();
    ColdForward out;
    out.stage = inChild([&] {
        evictFromPageCache(file);  // its weights are read from storage
        return forwardSeconds(file, randomIds(tokens, vocab));
    });
    out.gigabytesRead = (bytesReadFromStorage() - before) / 1e9;
    return out;
}

}  // namespace

int runQwen3MoeBench(const LargeModelOptions& o) {
    const Architecture shape = qwen3_30b_a3b();
    TemporaryFolder temporary;
    const std::filesystem::path file = checkpointFile(
        o.checkpoint, "qwen3-30b-a3b-shaped-Q8_0.gguf", "Qwen3-30B-A3B-shaped Q8_0 GGUF (32.5 GB)",
        [&](const std::filesystem::path& path) { writeRandomQwen3MoeGguf(path, shape, 42); },
        temporary);

    std::cerr << "open + info ...\n";
    const Stage info = openStage(file.string());
    std::cerr << "analyze every head ...\n";
    const Stage analyze = inChild([&] { return analysisSeconds(file.string(), false); });
    const ColdForward one = measureColdForward(file, 1, shape.vocabSize);
    const ColdForward many = measureColdForward(file, o.tokens, shape.vocabSize);
    // The same forward once its experts' pages are in the page cache (a first forward reads
    // them): the arithmetic's own time, the row that compares with gpt-oss's.
    std::cerr << "forward + capture at " << o.tokens << " tokens, its pages cached ...\n";
    ForwardRequest request;
    request.ids = randomIds(o.tokens, shape.vocabSize);
    request.logits = LogitsMode::None;
    const Stage cached = inChild([&] { return cachedForwardSeconds(file.string(), request); });

    std::cerr << "measuring SGEMM throughput and storage's read rate ...\n";
    const double gflops = sgemmGflops();
    const double storage = storageBytesPerSecond(file);
    const double active = activeParameters(shape);
    const auto ideal = [&](int tokens) { return 2.0 * active * tokens / (gflops * 1e9); };
    const double memory =
        static_cast<double>(sysconf(_SC_PHYS_PAGES)) * static_cast<double>(sysconf(_SC_PAGESIZE));
    std::printf(
        "\nQwen3-30B-A3B shape as a Q8_0 GGUF (%.1f GB, on a machine of %.1f GB: 48 layers, 32 "
        "query / 4 KV heads, 128 experts, 8 per token; %.2fB parameters used per token)\n",
        std::filesystem::file_size(file) / 1e9, memory / 1e9, active / 1e9);
    std::printf("SGEMM %.1f GFLOP/s: 2 * used parameters * tokens takes %.3f s a token\n", gflops,
                ideal(1));
    std::printf("storage reads %.2f GB/s (2 GB of the file, sequentially)\n", storage / 1e9);
    std::printf(
        "peak anonymous memory: RssAnon sampled every 10 ms (the mapped file is file pages, not "
        "counted); each forward starts with the file out of the page cache, but the last row's, "
        "the best of three after a first\n\n");
    constexpr std::uint64_t kAnon = 3'000'000'000;
    printRow("open + info", info, 1.0, 200'000'000);
    printRow(("analyze " + std::to_string(shape.layers * shape.heads) + " heads").c_str(), analyze,
             90.0, kAnon);
    for (const auto& [forward, tokens] : {std::pair{&one, 1}, std::pair{&many, o.tokens}}) {
        char what[64], note[160];
        std::snprintf(what, sizeof what, "forward + capture, %d token%s", tokens,
                      tokens == 1 ? "" : "s");
        std::snprintf(note, sizeof note,
                      "  (%.2fx the SGEMM time; read %.1f GB from storage, %.1f s at its rate)",
                      forward->stage.seconds / ideal(tokens), forward->gigabytesRead,
                      forward->gigabytesRead * 1e9 / storage);
        printRow(what, forward->stage, 1.5 * ideal(tokens), kAnon, note);
    }
    char what[64], note[64];
    std::snprintf(what, sizeof what, "forward + capture, %d tokens, cached", o.tokens);
    std::snprintf(note, sizeof note, "  (%.2fx the SGEMM time)", cached.seconds / ideal(o.tokens));
    printRow(what, cached, 1.5 * ideal(o.tokens), kAnon, note);
    return info.error.empty() && analyze.error.empty() && one.stage.error.empty() &&
                   many.stage.error.empty() && cached.error.empty()
               ? 0
               : 1;
}

}  // namespace qkv::bench
