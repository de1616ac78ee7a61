#include "bench/long_input_bench.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <random>

#include "bench/app_requests.h"
#include "bench/bench_common.h"
#include "core/model/forward.h"
#include "gpu/backend_factory.h"

namespace qkv::bench {
namespace {

constexpr double kMemoryAllowance = 1e9;  // the target: peak <= weights + 1 GB

// `text` single-quoted for the shell.
std::string quoted(const std::string& text) {
    std::string out = "'";
    for (char c : text) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return out + "'";
}

}  // namespace

LongInputResult measureLongInput(const std::string& dir, int tokens, int repeats) {
    const std::string self = std::filesystem::read_symlink("/proc/self/exe").string();
    const std::string command = quoted(self) + " --long-input-child " + quoted(dir) +
                                " --long-tokens " + std::to_string(tokens) + " --long-repeats " +
                                std::to_string(repeats) + " 2>&1";
    const nlohmann::json json = runReferenceScript(command);
    LongInputResult result;
    result.tokens = tokens;
    if (json.empty()) {
        result.error = "the measuring process failed (its output is on stderr)";
    } else if (json.contains("error")) {
        result.error = json["error"].get<std::string>();
    } else {
        result.seconds = json["seconds"].get<std::vector<double>>();
        result.peakRss = json["peak_rss"].get<std::uint64_t>();
        result.weightBytes = json["weight_bytes"].get<std::uint64_t>();
        result.sgemmGflops = json["sgemm_gflops"].get<double>();
        result.oneHead = json["one_head"].get<bool>();
    }
    return result;
}

int runLongInputChild(const std::string& dir, int tokens, int repeats) {
    nlohmann::json out;
    try {
        const auto model = Model::open(dir);
        const auto backend = createBackend("cpu");
        const ForwardPass pass(*model, *backend);
        std::mt19937 engine(3);
        const ForwardRequest request = appRequest(
            model->architecture(), randomIds(tokens, model->architecture().vocabSize, engine));
        pass.run(request);  // warm-up (and first touch of the mapped weights)
        // The SGEMM rate beside the forwards: the load on the machine may change over a run.
        double gflops = sgemmGflops();
        std::vector<double> times;
        for (int r = 0; r < repeats; ++r) {
            const auto start = Clock::now();
            pass.run(request);
            times.push_back(seconds(start));
        }
        gflops = std::max(gflops, sgemmGflops());
        out = {{"seconds", times},
               {"sgemm_gflops", gflops},
               {"peak_rss", peakRss()},
               {"weight_bytes", model->weightBytes()},
               {"one_head", capturesOneHead(request)}};
    } catch (const std::exception& e) {
        out = {{"error", e.what()}};
    }
    std::printf("%s\n", out.dump().c_str());
    return 0;
}

void addLongInputRows(const LongInputResult& r, const train::ModelShape& shape, ReportTable& table,
                      Json& summary, std::vector<std::string>& notMeasured) {
    std::string label = "long input " + std::to_string(r.tokens) + " tok";
    if (!r.error.empty()) {
        notMeasured.push_back(label + ": " + r.error);
        summary["long_input"] = {{"tokens", r.tokens}, {"error", r.error}};
        return;
    }
    label += r.oneHead ? ", one head" : ", every head";
    const double time = median(r.seconds);
    const double rate = forwardFlops(shape, r.tokens, false) / time / 1e9;
    const double peak = static_cast<double>(r.peakRss),
                 weights = static_cast<double>(r.weightBytes);
    const bool met = peak <= weights + kMemoryAllowance;
    char share[16], note[96];
    std::snprintf(share, sizeof share, "%.0f%%", 100.0 * rate / r.sgemmGflops);
    std::snprintf(note, sizeof note, "median of %zu; %.1f GFLOP/s, of SGEMM %.1f beside it",
                  r.seconds.size(), rate, r.sgemmGflops);
    table.rows.push_back({label + " [cpu]",
                          ms(time),
                          "",
                          share,
                          note,
                          {{"ms", time * 1e3},
                           {"gflops", rate},
                           {"of_sgemm", rate / r.sgemmGflops},
                           {"sgemm_gflops", r.sgemmGflops}}});
    std::snprintf(note, sizeof note, "<= weights + 1 GB (%s): %s  (%.2fx weights)",
                  megabytes(weights + kMemoryAllowance).c_str(), verdict(met).c_str(),
                  peak / weights);
    table.rows.push_back({"peak RSS " + label + " [cpu]",
                          megabytes(peak),
                          "",
                          "",
                          note,
                          {{"peak_rss_mb", peak / 1e6}, {"met", met}}});
    summary["long_input"] = {{"tokens", r.tokens},
                             {"ms", time * 1e3},
                             {"peak_rss_mb", peak / 1e6},
                             {"weights_mb", weights / 1e6},
                             {"peak_target_mb", (weights + kMemoryAllowance) / 1e6},
                             {"met", met},
                             {"one_head", r.oneHead}};
}

}  // namespace qkv::bench
