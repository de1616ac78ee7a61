#pragma once
// The summary of a multi-seed experiment (summary.json), computed from its runs' training logs:
// per variant the mean, sample standard deviation, min and max over seeds of the final
// validation loss and relation accuracy (and of the attention entropy, the Q/K gradient norms
// and full-bilinear's effective rank), and against the baseline variant the paired difference
// (same seed, so the same data order) with its spread over seeds.
//
// A difference "exceeds the spread" when |mean difference| is larger than each of: the
// baseline's seed-to-seed standard deviation, the variant's, and the standard deviation of the
// paired differences. With three seeds this is a plain reading, not a significance test.
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace qkv::train {

struct Spread {
    double mean = 0, sd = 0, min = 0, max = 0;
    int count = 0;
};
// Of the values present; count 0 when there are none. sd is the sample one (0 for one value).
Spread spreadOf(const std::vector<std::optional<double>>& values);

struct PairedDifference {
    Spread difference;  // variant - baseline, over the seeds both have
    bool exceedsSpread = false;
};
PairedDifference pairedDifference(const std::vector<std::optional<double>>& variant,
                                  const std::vector<std::optional<double>>& baseline);

struct ExperimentLayout {
    std::vector<std::string> variants;
    std::vector<std::uint64_t> seeds;
    std::string baseline = "learned";
};

// Where a run's log lives: DIR/<variant>/seed-<S>/training_log.json.
std::filesystem::path runFolder(const std::filesystem::path& dir, const std::string& variant,
                                std::uint64_t seed);

// Reads every run's log under `dir` (a missing or unfinished run is left out of the numbers and
// listed under "missing_runs") and returns summary.json's document.
nlohmann::ordered_json summarizeExperiment(const std::filesystem::path& dir,
                                           const ExperimentLayout& layout,
                                           const std::string& command);

// The summary as a Markdown table: mean ± sd per variant and the paired differences.
std::string summaryTable(const nlohmann::ordered_json& summary);

}  // namespace qkv::train
