#include "core/train/experiment_summary.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>

namespace qkv::train {
namespace {

using Json = nlohmann::ordered_json;

Json spreadJson(const Spread& s) {
    return {{"mean", s.mean}, {"sd", s.sd}, {"min", s.min}, {"max", s.max}, {"count", s.count}};
}

std::optional<double> numberAt(const Json& j, const char* key) {
    if (!j.is_object() || !j.contains(key) || !j[key].is_number()) return std::nullopt;
    return j[key].get<double>();
}

struct RunValues {
    std::optional<double> valLoss, relationAccuracy, entropy, gradQueryStart, gradKeyStart,
        gradQueryMean, gradKeyMean, bilinearRank;
    std::optional<std::uint64_t> parameters;
};

// A finished run's numbers; nullopt when the log is missing, unreadable or unfinished.
std::optional<RunValues> readRun(const std::filesystem::path& log) {
    std::ifstream in(log);
    if (!in) return std::nullopt;
    const Json doc = Json::parse(in, nullptr, false);
    if (doc.is_discarded() || !doc.value("finished", false) || !doc.contains("final") ||
        !doc.contains("steps") || !doc["steps"].is_array() || doc["steps"].empty())
        return std::nullopt;
    const Json& final = doc["final"];
    const Json& steps = doc["steps"];
    RunValues v;
    v.valLoss = numberAt(final, "val_loss");
    v.relationAccuracy = numberAt(final, "relation_accuracy");
    v.entropy = numberAt(final, "attention_entropy");
    v.bilinearRank = numberAt(final, "bilinear_effective_rank");
    v.gradQueryStart = numberAt(steps.front(), "grad_norm_q");
    v.gradKeyStart = numberAt(steps.front(), "grad_norm_k");
    auto meanAfterStart = [&](const char* key) -> std::optional<double> {
        double sum = 0.0;
        int n = 0;
        for (std::size_t i = 1; i < steps.size(); ++i)
            if (auto x = numberAt(steps[i], key)) sum += *x, ++n;
        if (!n) return std::nullopt;
        return sum / n;
    };
    v.gradQueryMean = meanAfterStart("grad_norm_q");
    v.gradKeyMean = meanAfterStart("grad_norm_k");
    if (doc.contains("config") && doc["config"].contains("parameters"))
        v.parameters = doc["config"]["parameters"].get<std::uint64_t>();
    return v;
}

std::string plusMinus(const Json& spread, int decimals) {
    if (!spread.is_object() || spread.value("count", 0) == 0) return "—";
    char text[64];
    std::snprintf(text, sizeof text, "%.*f ± %.*f", decimals, spread["mean"].get<double>(),
                  decimals, spread["sd"].get<double>());
    return text;
}

std::string signedPlusMinus(const Json& paired, int decimals) {
    if (!paired.is_object() || paired["difference"].value("count", 0) == 0) return "—";
    char text[80];
    std::snprintf(text, sizeof text, "%+.*f ± %.*f%s", decimals,
                  paired["difference"]["mean"].get<double>(), decimals,
                  paired["difference"]["sd"].get<double>(),
                  paired["exceeds_spread"].get<bool>() ? " **(exceeds spread)**" : "");
    return text;
}

}  // namespace

Spread spreadOf(const std::vector<std::optional<double>>& values) {
    Spread s;
    std::vector<double> present;
    for (const auto& v : values)
        if (v) present.push_back(*v);
    s.count = static_cast<int>(present.size());
    if (present.empty()) return s;
    double sum = 0.0;
    for (double v : present) sum += v;
    s.mean = sum / s.count;
    double squares = 0.0;
    for (double v : present) squares += (v - s.mean) * (v - s.mean);
    s.sd = s.count > 1 ? std::sqrt(squares / (s.count - 1)) : 0.0;
    s.min = *std::min_element(present.begin(), present.end());
    s.max = *std::max_element(present.begin(), present.end());
    return s;
}

PairedDifference pairedDifference(const std::vector<std::optional<double>>& variant,
                                  const std::vector<std::optional<double>>& baseline) {
    std::vector<std::optional<double>> differences;
    for (std::size_t i = 0; i < std::min(variant.size(), baseline.size()); ++i)
        if (variant[i] && baseline[i]) differences.push_back(*variant[i] - *baseline[i]);
    PairedDifference p;
    p.difference = spreadOf(differences);
    const double spread = std::max({spreadOf(variant).sd, spreadOf(baseline).sd, p.difference.sd});
    p.exceedsSpread = p.difference.count > 0 && std::abs(p.difference.mean) > spread;
    return p;
}

std::filesystem::path runFolder(const std::filesystem::path& dir, const std::string& variant,
                                std::uint64_t seed) {
    return dir / variant / ("seed-" + std::to_string(seed));
}

Json summarizeExperiment(const std::filesystem::path& dir, const ExperimentLayout& layout,
                         const std::string& command) {
    // values[variant][metric] is one entry per seed, in layout.seeds order.
    struct Series {
        std::vector<std::optional<double>> valLoss, relations, entropy, gradQueryStart,
            gradKeyStart, gradQueryMean, gradKeyMean, bilinearRank;
        std::optional<std::uint64_t> parameters;
        Json runs = Json::array();
    };
    std::vector<Series> series(layout.variants.size());
    Json missing = Json::array();
    for (std::size_t v = 0; v < layout.variants.size(); ++v)
        for (std::uint64_t seed : layout.seeds) {
            const std::filesystem::path relative =
                runFolder("", layout.variants[v], seed) / "training_log.json";
            const std::optional<RunValues> run = readRun(dir / relative);
            Series& s = series[v];
            if (!run) missing.push_back(relative.generic_string());
            const RunValues values = run.value_or(RunValues{});
            s.valLoss.push_back(values.valLoss);
            s.relations.push_back(values.relationAccuracy);
            s.entropy.push_back(values.entropy);
            s.gradQueryStart.push_back(values.gradQueryStart);
            s.gradKeyStart.push_back(values.gradKeyStart);
            s.gradQueryMean.push_back(values.gradQueryMean);
            s.gradKeyMean.push_back(values.gradKeyMean);
            s.bilinearRank.push_back(values.bilinearRank);
            if (values.parameters) s.parameters = values.parameters;
            if (run) {
                Json r = {{"seed", seed}, {"log", relative.generic_string()}};
                if (values.valLoss) r["val_loss"] = *values.valLoss;
                if (values.relationAccuracy) r["relation_accuracy"] = *values.relationAccuracy;
                s.runs.push_back(r);
            }
        }

    const auto base = std::find(layout.variants.begin(), layout.variants.end(), layout.baseline);
    const Series* baseline =
        base == layout.variants.end() ? nullptr : &series[base - layout.variants.begin()];
    Json variants = Json::array();
    for (std::size_t v = 0; v < layout.variants.size(); ++v) {
        const Series& s = series[v];
        Json j = {{"name", layout.variants[v]}};
        if (s.parameters) j["parameters"] = *s.parameters;
        j["runs"] = s.runs;
        j["val_loss"] = spreadJson(spreadOf(s.valLoss));
        if (spreadOf(s.relations).count) j["relation_accuracy"] = spreadJson(spreadOf(s.relations));
        j["attention_entropy"] = spreadJson(spreadOf(s.entropy));
        j["grad_norm_q_initial"] = spreadJson(spreadOf(s.gradQueryStart));
        j["grad_norm_q_mean"] = spreadJson(spreadOf(s.gradQueryMean));
        if (spreadOf(s.gradKeyStart).count) {
            j["grad_norm_k_initial"] = spreadJson(spreadOf(s.gradKeyStart));
            j["grad_norm_k_mean"] = spreadJson(spreadOf(s.gradKeyMean));
        }
        if (spreadOf(s.bilinearRank).count)
            j["bilinear_effective_rank"] = spreadJson(spreadOf(s.bilinearRank));
        if (baseline && &s != baseline) {
            auto paired = [](const PairedDifference& p) {
                return Json{{"difference", spreadJson(p.difference)},
                            {"mean", p.difference.mean},
                            {"sd", p.difference.sd},
                            {"exceeds_spread", p.exceedsSpread}};
            };
            j["vs_baseline"] = {
                {"val_loss", paired(pairedDifference(s.valLoss, baseline->valLoss))}};
            if (spreadOf(s.relations).count)
                j["vs_baseline"]["relation_accuracy"] =
                    paired(pairedDifference(s.relations, baseline->relations));
        }
        variants.push_back(j);
    }
    return {{"format", "qkvlab-experiment"},
            {"version", 1},
            {"command", command},
            {"seeds", layout.seeds},
            {"baseline", layout.baseline},
            {"exceeds_spread_rule",
             "|mean paired difference| > max(sd of the baseline over seeds, sd of the variant, "
             "sd of the paired differences)"},
            {"variants", variants},
            {"missing_runs", missing}};
}

std::string summaryTable(const Json& summary) {
    std::string out =
        "| variant | parameters | validation loss | Δ loss vs " +
        summary.value("baseline", std::string("baseline")) +
        " | relation accuracy | Δ accuracy | attention entropy |\n|---|---|---|---|---|---|---|\n";
    for (const Json& v : summary["variants"]) {
        const Json none;
        const Json& vs = v.contains("vs_baseline") ? v["vs_baseline"] : none;
        out += "| `" + v["name"].get<std::string>() + "` | " +
               (v.contains("parameters") ? std::to_string(v["parameters"].get<std::uint64_t>())
                                         : "—") +
               " | " + plusMinus(v["val_loss"], 4) + " | " +
               (vs.is_object() ? signedPlusMinus(vs["val_loss"], 4) : "—") + " | " +
               (v.contains("relation_accuracy") ? plusMinus(v["relation_accuracy"], 3) : "—") +
               " | " +
               (vs.is_object() && vs.contains("relation_accuracy")
                    ? signedPlusMinus(vs["relation_accuracy"], 3)
                    : "—") +
               " | " + plusMinus(v["attention_entropy"], 3) + " |\n";
    }
    return out;
}

}  // namespace qkv::train
