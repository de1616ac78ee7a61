#include "bench/child_stage.h"

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <limits>
#include <random>
#include <thread>

#include "bench/bench_common.h"

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

std::string gb(std::uint64_t bytes) {
    char text[32];
    std::snprintf(text, sizeof text, "%.2f GB", bytes / 1e9);
    return text;
}

}  // namespace

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

double cachedForwardSeconds(const std::string& dir, const ForwardRequest& request) {
    auto model = Model::open(dir);
    auto backend = createCpuBackend();
    const ForwardPass pass(*model, *backend);
    auto start = Clock::now();
    pass.run(request);
    std::cerr << "  first forward " << seconds(start) << " s; then";
    double best = std::numeric_limits<double>::infinity();
    for (int i = 0; i < kCachedForwards; ++i) {
        start = Clock::now();
        pass.run(request);
        const double s = seconds(start);
        std::cerr << ' ' << s;
        best = std::min(best, s);
    }
    std::cerr << " s (the best is the row's)\n";
    return best;
}

double forwardSeconds(const std::filesystem::path& location, const std::vector<int>& ids,
                      const std::function<void(int layer)>& afterLayer) {
    auto model = Model::open(location);
    auto backend = createCpuBackend();
    const ForwardPass pass(*model, *backend);
    ForwardRequest request;
    request.ids = ids;
    request.logits = LogitsMode::None;
    request.progress = [&](int done, int total) {
        std::cerr << "\r  layer " << done << " of " << total << std::flush;
        if (afterLayer) afterLayer(done - 1);
    };
    const auto start = Clock::now();
    pass.run(request);
    std::cerr << "\n";
    return seconds(start);
}

std::vector<int> randomIds(int count, int vocab) {
    std::mt19937 engine(11);
    std::uniform_int_distribution<int> id(0, vocab - 1);
    std::vector<int> ids(count);
    for (int& i : ids) i = id(engine);
    return ids;
}

void printRow(const char* what, const Stage& s, double limitSeconds, std::uint64_t limitAnon,
              const std::string& note) {
    if (!s.error.empty()) {
        std::printf("%-38s FAILED: %s\n", what, s.error.c_str());
        return;
    }
    const bool met = s.seconds <= limitSeconds && s.peakAnon <= limitAnon;
    std::printf("%-38s %9.2f s  (<= %.*f s)   %9s  (<= %s)   %s%s\n", what, s.seconds,
                limitSeconds < 1 ? 2 : 1, limitSeconds, gb(s.peakAnon).c_str(),
                gb(limitAnon).c_str(), met ? "met" : "MISSED", note.c_str());
}

}  // namespace qkv::bench
