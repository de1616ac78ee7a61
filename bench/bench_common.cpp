#include "bench/bench_common.h"

#include <cblas.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <thread>

namespace qkv::bench {

double seconds(Clock::time_point since) {
    return std::chrono::duration<double>(Clock::now() - since).count();
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

double forwardFlops(const train::ModelShape& s, int n, bool logits) {
    const double d = s.dModel;
    // Per layer 24 n d^2 (q, k, v, output and MLP projections) + 4 n^2 d (scores and A V).
    return s.layers * (24.0 * n * d * d + 4.0 * n * n * d) + (logits ? 2.0 * d * s.vocab : 0.0);
}

std::uint64_t peakRss() {
    std::ifstream status("/proc/self/status");
    std::string line;
    while (std::getline(status, line))
        if (line.rfind("VmHWM:", 0) == 0) return std::stoull(line.substr(6)) * 1024;
    return 0;
}

void resetPeak() { std::ofstream("/proc/self/clear_refs") << "5"; }

double sgemmGflops() {
    openblas_set_num_threads(static_cast<int>(std::max(1u, std::thread::hardware_concurrency())));
    const int n = 768;
    std::vector<float> a(n * n, 0.5f), b(n * n, 0.25f), c(n * n);
    auto gemm = [&] {
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f, a.data(), n, b.data(),
                    n, 0.0f, c.data(), n);
    };
    for (int i = 0; i < 5; ++i) gemm();
    std::vector<double> rates;
    for (int round = 0; round < 5; ++round) {
        const auto start = Clock::now();
        int runs = 0;
        while (seconds(start) < 0.2) {
            gemm();
            ++runs;
        }
        rates.push_back(2.0 * n * n * n * runs / seconds(start) / 1e9);
    }
    openblas_set_num_threads(1);
    return *std::max_element(rates.begin(), rates.end());
}

nlohmann::json runReferenceScript(const std::string& command) {
    FILE* pipe = popen(command.c_str(), "r");
    if (!pipe) return {};
    std::string output, last;
    char buffer[4096];
    while (size_t got = fread(buffer, 1, sizeof buffer, pipe)) output.append(buffer, got);
    const int status = pclose(pipe);
    std::istringstream lines(output);
    for (std::string line; std::getline(lines, line);)
        if (!line.empty()) last = line;
    if (status != 0 || last.empty() || last.front() != '{') {
        std::cerr << "reference run failed (" << command << "):\n" << output << "\n";
        return {};
    }
    return nlohmann::json::parse(last);
}

TemporaryFolder::~TemporaryFolder() {
    std::error_code ignored;
    if (!path.empty()) std::filesystem::remove_all(path, ignored);
}

}  // namespace qkv::bench
