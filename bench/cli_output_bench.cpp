#include "bench/cli_output_bench.h"

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <iostream>
#include <tuple>

#include "bench/bench_common.h"
#include "bench/child_stage.h"

namespace qkv::bench {
namespace {

namespace fs = std::filesystem;

// Runs `arguments` with stdout into `output`; returns its peak RSS in bytes, 0 when it failed.
std::uint64_t peakOf(const std::vector<std::string>& arguments, const fs::path& output) {
    const pid_t child = fork();
    if (child == 0) {
        const int fd = open(output.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd < 0 || dup2(fd, STDOUT_FILENO) < 0) _exit(127);
        std::vector<char*> argv;
        for (const std::string& a : arguments) argv.push_back(const_cast<char*>(a.c_str()));
        argv.push_back(nullptr);
        execv(argv[0], argv.data());
        _exit(127);
    }
    int status = 0;
    rusage usage{};
    if (child < 0 || wait4(child, &status, 0, &usage) != child || !WIFEXITED(status) ||
        WEXITSTATUS(status) != 0)
        return 0;
    return static_cast<std::uint64_t>(usage.ru_maxrss) * 1024;  // kilobytes on Linux
}

}  // namespace

CliOutputResult measureCliOutputs(const std::string& dir, int tokens, int vocab) {
    CliOutputResult out;
    out.tokens = tokens;
    const fs::path cli =
        fs::read_symlink("/proc/self/exe").parent_path().parent_path() / "app" / "qkvlab-cli";
    if (!fs::exists(cli)) {
        out.error = "CLI output memory: " + cli.string() + " is not built";
        return out;
    }
    std::string ids;
    for (int id : randomIds(tokens, vocab)) ids += (ids.empty() ? "" : ",") + std::to_string(id);
    const TemporaryFolder scratch{fs::temp_directory_path() /
                                  ("qkvlab-bench-cli-" + std::to_string(getpid()))};
    fs::create_directories(scratch.path);
    const std::vector<std::string> common = {cli.string(), "attention", "--model",   dir,
                                             "--ids",      ids,         "--layer",   "0",
                                             "--head",     "0",         "--backend", "cpu"};
    auto with = [&](std::vector<std::string> extra) {
        std::vector<std::string> all = common;
        all.insert(all.end(), extra.begin(), extra.end());
        return all;
    };
    std::cerr << "  table ...\n";
    out.tablePeak = peakOf(common, scratch.path / "table.txt");
    std::cerr << "  --json ...\n";
    out.jsonPeak = peakOf(with({"--json"}), scratch.path / "out.json");
    std::cerr << "  --npz ...\n";
    const fs::path npz = scratch.path / "out.npz";
    out.npzPeak = peakOf(with({"--npz", npz.string()}), scratch.path / "npz.txt");
    if (!out.tablePeak || !out.jsonPeak || !out.npzPeak) {
        out.error = "CLI output memory: qkvlab-cli attention failed on the checkpoint";
        return out;
    }
    out.jsonBytes = fs::file_size(scratch.path / "out.json");
    out.npzBytes = fs::file_size(npz);
    return out;
}

void addCliOutputRows(const CliOutputResult& r, ReportTable& table, Json& summary,
                      std::vector<std::string>& notMeasured) {
    if (!r.error.empty()) {
        notMeasured.push_back(r.error);
        return;
    }
    const std::string n = std::to_string(r.tokens);
    table.rows.push_back({"attention " + n + " tok, one head, table: peak RSS",
                          megabytes(static_cast<double>(r.tablePeak)),
                          "",
                          "",
                          "-",
                          {{"peak_rss_mb", r.tablePeak / 1e6}}});
    Json figures = Json::object();
    for (const auto& [name, peak, bytes] :
         {std::tuple{"--json", r.jsonPeak, r.jsonBytes}, {"--npz", r.npzPeak, r.npzBytes}}) {
        const double ratio = static_cast<double>(peak) / static_cast<double>(r.tablePeak);
        char cell[32];
        std::snprintf(cell, sizeof cell, "%.2fx", ratio);
        table.rows.push_back(
            {std::string("attention ") + n + " tok, one head, " + name + ": peak RSS",
             megabytes(static_cast<double>(peak)),
             "",
             cell,
             "<= 1.2x the table's: " + verdict(ratio <= 1.2) + "  (wrote " +
                 megabytes(static_cast<double>(bytes)) + ")",
             {{"peak_rss_mb", peak / 1e6}, {"ratio_vs_table", ratio}, {"bytes", bytes}}});
        figures[std::string(name).substr(2)] = {{"peak_rss_mb", peak / 1e6},
                                                {"ratio_vs_table", ratio}};
    }
    figures["tokens"] = r.tokens;
    figures["table_peak_rss_mb"] = r.tablePeak / 1e6;
    summary["cli_output"] = figures;
}

}  // namespace qkv::bench
