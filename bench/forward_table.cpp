#include "bench/forward_table.h"

#include <algorithm>
#include <climits>
#include <cstdio>

#include "bench/bench_common.h"

namespace qkv::bench {
namespace {

constexpr double kTorchRatioTarget = 0.4;

// The keystroke targets (seconds) by text length; 0: none.
double keystrokeTarget(int tokens) { return tokens == 64 ? 0.040 : tokens == 256 ? 0.060 : 0.0; }

double torchSeconds(const Round& round, int n) {
    if (round.torch.empty()) return 0;
    return round.torch["forward_seconds"].value(std::to_string(n), 0.0);
}

// A time measured in every round next to PyTorch's forward of n tokens: the medians and the
// rounds' ratios (over the rounds where PyTorch ran).
struct Timed {
    double seconds = 0;
    double torch = 0;  // 0: no reference
    double ratio = 0;
    std::vector<double> ratios;
};

Timed timed(const std::vector<Round>& rounds, int n,
            const std::function<double(const Round&)>& value) {
    Timed t;
    t.seconds = median(acrossRounds(rounds, value));
    std::vector<double> references;
    for (const Round& r : rounds) {
        if (torchSeconds(r, n) <= 0) continue;
        references.push_back(torchSeconds(r, n));
        t.ratios.push_back(value(r) / torchSeconds(r, n));
    }
    if (references.empty()) return t;
    t.torch = median(references);
    t.ratio = median(t.ratios);
    return t;
}

ReportRow timedRow(const std::string& measure, const Timed& t, std::string target,
                   bool listRounds = true) {
    ReportRow row;
    row.measure = measure;
    row.value = ms(t.seconds);
    row.reference = t.torch > 0 ? ms(t.torch) : "-";
    row.ratio = ratio(t.ratio, t.torch > 0 ? 1.0 : 0.0, "%.3f");
    row.target = std::move(target);
    row.figures["ms"] = t.seconds * 1e3;
    if (t.torch <= 0) return row;
    row.figures["torch_ms"] = t.torch * 1e3;
    row.figures["ratio_vs_torch"] = t.ratio;
    row.figures["round_ratios"] = t.ratios;
    if (listRounds && t.ratios.size() > 1) {
        row.target += "  (rounds:";
        for (double x : t.ratios) row.target += " " + ratio(x, 1.0, "%.3f");
        row.target += ")";
    }
    return row;
}

// A timed row with the target "<= 0.4x PyTorch" where it has one (and a reference).
ReportRow torchTargetRow(const std::string& measure, const Timed& t, bool hasTarget) {
    if (!hasTarget || t.torch <= 0) return timedRow(measure, t, "-");
    const bool met = t.ratio <= kTorchRatioTarget;
    char target[48];
    std::snprintf(target, sizeof target, "<= %.1fx PyTorch: %s", kTorchRatioTarget,
                  verdict(met).c_str());
    ReportRow row = timedRow(measure, t, target);
    row.figures["met"] = met;
    return row;
}

void addKeystrokeRows(const ForwardTableContext& c, size_t b, size_t k, ReportTable& table,
                      Json& summary) {
    const auto& rounds = c.rounds;
    const KeystrokeResult& first = rounds.front().runs[b].keystrokes[k];
    const int n = first.tokens;
    const std::string name = rounds.front().runs[b].name;
    const std::string suffix = std::to_string(n) + " tok [" + name + "]";
    auto keystroke = [&](const Round& r) { return r.runs[b].keystrokes[k].seconds; };
    auto whole = [&](const Round& r) { return r.runs[b].keystrokes[k].fullSeconds; };
    const Timed typed = timed(rounds, n, keystroke), computed = timed(rounds, n, whole);
    int fewest = INT_MAX, most = 0;
    for (const Round& r : rounds) {
        fewest = std::min(fewest, r.runs[b].keystrokes[k].reusedFewest);
        most = std::max(most, r.runs[b].keystrokes[k].reusedMost);
    }
    const double ofWhole =
        median(acrossRounds(rounds, [&](const Round& r) { return keystroke(r) / whole(r); }));

    std::string target = "-";
    const double goal = keystrokeTarget(n);
    if (goal > 0) target = "<= " + ms(goal) + ": " + verdict(typed.seconds <= goal);
    char note[128];
    const std::string reused =
        fewest == most ? std::to_string(most) : std::to_string(fewest) + "-" + std::to_string(most);
    std::snprintf(note, sizeof note, "  (reused %s of %d tokens; %.3fx computed whole; %s)",
                  reused.c_str(), n, ofWhole, first.oneHead ? "one head" : "every head");
    ReportRow row = timedRow("keystroke " + suffix, typed, target + note, false);
    row.figures["reused_tokens"] = {fewest, most};
    row.figures["ratio_vs_computed_whole"] = ofWhole;
    row.figures["keystrokes"] = first.keystrokes;
    if (goal > 0) row.figures["met"] = typed.seconds <= goal;
    table.rows.push_back(std::move(row));
    table.rows.push_back(timedRow(
        "keystroke " + std::to_string(n) + " tok computed whole [" + name + "]", computed, "-"));
    if (name == "cpu") summary["keystroke_ms"][std::to_string(n)] = typed.seconds * 1e3;
}

void addBindRow(const ForwardTableContext& c, size_t b, ReportTable& table) {
    const double bind =
        median(acrossRounds(c.rounds, [&](const Round& r) { return r.runs[b].bindSeconds; }));
    if (bind <= 0.001) return;  // the CPU binds nothing
    ReportRow row;
    row.measure = "bind weights [" + c.rounds.front().runs[b].name + "]";
    row.value = ms(bind);
    row.target = "-";
    row.figures["ms"] = bind * 1e3;
    table.rows.push_back(std::move(row));
}

// Every head at each token count, and the app's one-head request where the app makes it.
void addForwardTimeRows(const ForwardTableContext& c, size_t b, ReportTable& table, Json& summary) {
    const BackendRun& first = c.rounds.front().runs[b];
    const bool cpu = first.name == "cpu";
    for (size_t i = 0; i < c.options.tokens.size(); ++i) {
        const int n = c.options.tokens[i];
        const std::string key = std::to_string(n);
        const Timed all =
            timed(c.rounds, n, [&](const Round& r) { return r.runs[b].forwardSeconds[i]; });
        table.rows.push_back(torchTargetRow("forward+capture " + key + " tok [" + first.name + "]",
                                            all, cpu && (n == 64 || n == 256)));
        if (cpu && all.torch > 0) summary["forward_all_heads_ratio_vs_torch"][key] = all.ratio;
        if (first.oneHeadSeconds[i] <= 0) continue;
        const Timed one =
            timed(c.rounds, n, [&](const Round& r) { return r.runs[b].oneHeadSeconds[i]; });
        table.rows.push_back(torchTargetRow(
            "forward+capture " + key + " tok, one head [" + first.name + "]", one, cpu));
        if (cpu && one.torch > 0) summary["forward_ratio_vs_torch"][key] = one.ratio;
    }
}

void addThroughputRows(const ForwardTableContext& c, size_t b, ReportTable& table) {
    const std::string& name = c.rounds.front().runs[b].name;
    for (size_t i = 0; i < c.options.tokens.size(); ++i) {
        const int n = c.options.tokens[i];
        const double time = median(
            acrossRounds(c.rounds, [&](const Round& r) { return r.runs[b].forwardSeconds[i]; }));
        const double rate = forwardFlops(c.shape, n, true) / time / 1e9;
        char value[32], share[16];
        std::snprintf(value, sizeof value, "%.1f GFLOP/s", rate);
        std::snprintf(share, sizeof share, "%.0f%%", 100.0 * rate / c.peakGflops);
        ReportRow row;
        row.measure = "throughput " + std::to_string(n) + " tok [" + name + "]";
        row.value = value;
        row.ratio = share;
        row.target = "-";
        if (n == 256 && name == "cpu")
            row.target = ">= 60% of SGEMM: " + verdict(rate >= 0.6 * c.peakGflops);
        row.figures = {{"gflops", rate}, {"of_sgemm", rate / c.peakGflops}};
        table.rows.push_back(std::move(row));
    }
}

// The first round's peak: later rounds start with the heap the earlier ones left (the allocator
// keeps up to 256 MB of freed memory for reuse, keepFreedMemoryForReuse). Every round's is listed.
void addPeakRows(const ForwardTableContext& c, size_t b, ReportTable& table) {
    const std::string& name = c.rounds.front().runs[b].name;
    for (size_t i = 0; i < c.options.tokens.size(); ++i) {
        const int n = c.options.tokens[i];
        const double traceBytes = 2.0 * c.shape.layers * c.shape.heads * n * n * 4;
        const auto peaks = acrossRounds(
            c.rounds, [&](const Round& r) { return static_cast<double>(r.runs[b].peakRss[i]); });
        char note[96];
        std::snprintf(note, sizeof note, "%.2fx weights (trace %.0f MB)",
                      peaks.front() / c.weightBytes, traceBytes / 1e6);
        ReportRow row;
        row.measure = "peak RSS " + std::to_string(n) + " tok [" + name + "]";
        row.value = megabytes(peaks.front());
        row.target = note;
        if (peaks.size() > 1) {
            row.target += "  (rounds:";
            for (double p : peaks) row.target += " " + megabytes(p);
            row.target += ")";
        }
        row.figures["peak_rss_mb"] = peaks.front() / 1e6;
        for (double p : peaks) row.figures["round_peaks_mb"].push_back(p / 1e6);
        table.rows.push_back(std::move(row));
    }
}

}  // namespace

std::vector<double> acrossRounds(const std::vector<Round>& rounds,
                                 const std::function<double(const Round&)>& value) {
    std::vector<double> values;
    for (const Round& round : rounds) values.push_back(value(round));
    return values;
}

void addForwardRows(const ForwardTableContext& c, ReportTable& table, Json& summary) {
    summary["keystroke_ms"] = Json::object();
    summary["forward_ratio_vs_torch"] = Json::object();
    summary["forward_all_heads_ratio_vs_torch"] = Json::object();
    for (size_t b = 0; b < c.rounds.front().runs.size(); ++b) {
        addBindRow(c, b, table);
        addForwardTimeRows(c, b, table, summary);
        for (size_t k = 0; k < c.options.keystrokeTokens.size(); ++k)
            addKeystrokeRows(c, b, k, table, summary);
        addThroughputRows(c, b, table);
        addPeakRows(c, b, table);
    }
}

}  // namespace qkv::bench
