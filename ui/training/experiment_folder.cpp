#include "ui/training/experiment_folder.h"

#include <QDir>
#include <QFileInfo>
#include <algorithm>
#include <nlohmann/json.hpp>

#include "core/tokenize/json_file.h"
#include "core/util/error.h"

namespace qkv::ui {
namespace {

const char* const kSummaryFile = "summary.json";
const char* const kFormat = "qkvlab-experiment";

double number(const nlohmann::json& value, const std::string& where) {
    if (!value.is_number()) json::fail(where, "expected a number");
    return value.get<double>();
}

std::optional<double> optionalNumber(const nlohmann::json& object, const char* key,
                                     const std::string& where) {
    const nlohmann::json* value = json::find(object, key, where);
    if (!value) return std::nullopt;
    return number(*value, json::member(where, key));
}

// A spread over no seeds at all (every run missing) has no mean: nothing to show.
bool hasMean(const nlohmann::json& value, const std::string& where) {
    const nlohmann::json* mean = json::find(value, "mean", where);
    const nlohmann::json* count = json::find(value, "count", where);
    return mean && mean->is_number() && !(count && count->is_number() && count->get<double>() == 0);
}

std::optional<SeedSpread> readSpread(const nlohmann::json& variant, const char* key,
                                     const std::string& where) {
    const nlohmann::json* value = json::find(variant, key, where);
    const std::string field = json::member(where, key);
    if (!value || !hasMean(*value, field)) return std::nullopt;
    SeedSpread s;
    s.mean = value->at("mean").get<double>();
    s.sd = optionalNumber(*value, "sd", field).value_or(0.0);
    s.min = optionalNumber(*value, "min", field).value_or(s.mean);
    s.max = optionalNumber(*value, "max", field).value_or(s.mean);
    return s;
}

std::optional<PairedDifference> readDifference(const nlohmann::json* vsBaseline, const char* key,
                                               const std::string& where) {
    if (!vsBaseline) return std::nullopt;
    const nlohmann::json* value = json::find(*vsBaseline, key, where);
    const std::string field = json::member(where, key);
    if (!value || !hasMean(*value, field)) return std::nullopt;
    PairedDifference d;
    d.mean = value->at("mean").get<double>();
    d.sd = optionalNumber(*value, "sd", field).value_or(0.0);
    d.exceedsSpread = json::boolOr(*value, "exceeds_spread", false, field);
    return d;
}

// A missing or broken log stays on the run as its error.
void readLog(ExperimentRun& run) {
    try {
        run.run = readTrainingLog(run.logPath);
    } catch (const Error& e) {
        run.error = QString::fromStdString(e.what());
    }
}

ExperimentRun readRun(const nlohmann::json& entry, const QDir& folder, const std::string& where) {
    ExperimentRun run;
    run.seed = json::asInt(json::require(entry, "seed", where), json::member(where, "seed"));
    const QString log = QString::fromStdString(
        json::asString(json::require(entry, "log", where), json::member(where, "log")));
    run.logPath = QDir::cleanPath(folder.absoluteFilePath(log));
    run.valLoss = optionalNumber(entry, "val_loss", where);
    run.relationAccuracy = optionalNumber(entry, "relation_accuracy", where);
    readLog(run);
    return run;
}

// "missing_runs" names the logs the summary could not read ("VARIANT/seed-S/training_log.json"):
// each becomes a run of its variant, read again in case it has been written since.
void addMissingRuns(ExperimentFolder& e, const nlohmann::json& summary, const QDir& folder) {
    const std::string where = json::member(kSummaryFile, "missing_runs");
    const nlohmann::json* missing = json::find(summary, "missing_runs", kSummaryFile);
    if (!missing) return;
    if (!missing->is_array()) json::fail(where, "expected a list");
    for (const nlohmann::json& entry : *missing) {
        const QString log = QString::fromStdString(json::asString(entry, where));
        const QStringList parts = log.split(u'/');
        const auto variant =
            std::find_if(e.variants.begin(), e.variants.end(),
                         [&](const ExperimentVariant& v) { return v.name == parts.value(0); });
        if (variant == e.variants.end()) continue;
        ExperimentRun run;
        run.logPath = QDir::cleanPath(folder.absoluteFilePath(log));
        if (parts.value(1).startsWith(QStringLiteral("seed-"))) run.seed = parts[1].mid(5).toInt();
        const bool listed =
            std::any_of(variant->runs.begin(), variant->runs.end(),
                        [&](const ExperimentRun& r) { return r.logPath == run.logPath; });
        if (listed) continue;
        readLog(run);
        variant->runs.push_back(std::move(run));
    }
    for (ExperimentVariant& v : e.variants)
        std::stable_sort(
            v.runs.begin(), v.runs.end(),
            [](const ExperimentRun& a, const ExperimentRun& b) { return a.seed < b.seed; });
}

ExperimentVariant readVariant(const nlohmann::json& entry, const QDir& folder,
                              const std::string& where) {
    ExperimentVariant v;
    v.name = QString::fromStdString(
        json::asString(json::require(entry, "name", where), json::member(where, "name")));
    const std::string named = where + " (" + v.name.toStdString() + ")";
    if (const nlohmann::json* parameters = json::find(entry, "parameters", named))
        v.parameters =
            static_cast<long long>(number(*parameters, json::member(named, "parameters")));
    const nlohmann::json& runs = json::require(entry, "runs", named);
    if (!runs.is_array()) json::fail(json::member(named, "runs"), "expected a list");
    for (size_t i = 0; i < runs.size(); ++i)
        v.runs.push_back(
            readRun(runs[i], folder, json::member(named, "runs") + "[" + std::to_string(i) + "]"));
    v.valLoss = readSpread(entry, "val_loss", named);
    v.relationAccuracy = readSpread(entry, "relation_accuracy", named);
    const nlohmann::json* vs = json::find(entry, "vs_baseline", named);
    const std::string vsWhere = json::member(named, "vs_baseline");
    v.valLossVsBaseline = readDifference(vs, "val_loss", vsWhere);
    v.relationAccuracyVsBaseline = readDifference(vs, "relation_accuracy", vsWhere);
    return v;
}

void checkFormat(const nlohmann::json& summary) {
    const std::string where = kSummaryFile;
    if (!summary.is_object()) json::fail(where, "expected a JSON object");
    const nlohmann::json* format = json::find(summary, "format", where);
    if (!format || !format->is_string() || format->get<std::string>() != kFormat)
        json::fail(where, std::string("not a QKV Lab experiment summary (its \"format\" is ") +
                              (format ? format->dump() : std::string("missing")) + ", expected \"" +
                              kFormat + "\")");
    const int version =
        json::asInt(json::require(summary, "version", where), json::member(where, "version"));
    if (version > kExperimentFormatVersion)
        json::fail(where, "version " + std::to_string(version) +
                              ", written by a newer QKV Lab; this one reads version " +
                              std::to_string(kExperimentFormatVersion) +
                              " and older. Update QKV Lab to open it.");
    if (version < 1) json::fail(json::member(where, "version"), "expected 1 or more");
}

ExperimentFolder readSummary(const nlohmann::json& summary, const QDir& folder) {
    const std::string where = kSummaryFile;
    checkFormat(summary);
    ExperimentFolder e;
    e.folder = folder.absolutePath();
    e.command = QString::fromStdString(json::stringOr(summary, "command", "", where));
    if (const nlohmann::json* seeds = json::find(summary, "seeds", where)) {
        if (!seeds->is_array()) json::fail(json::member(where, "seeds"), "expected a list");
        for (const nlohmann::json& seed : *seeds)
            e.seeds.push_back(json::asInt(seed, json::member(where, "seeds")));
    }
    if (const nlohmann::json* steps = json::find(summary, "steps", where))
        e.steps = json::asInt(*steps, json::member(where, "steps"));
    e.baseline = QString::fromStdString(json::stringOr(summary, "baseline", "", where));
    const nlohmann::json& variants = json::require(summary, "variants", where);
    if (!variants.is_array() || variants.empty())
        json::fail(json::member(where, "variants"), "expected a list of at least one variant");
    for (size_t i = 0; i < variants.size(); ++i)
        e.variants.push_back(readVariant(
            variants[i], folder, json::member(where, "variants") + "[" + std::to_string(i) + "]"));
    addMissingRuns(e, summary, folder);
    return e;
}

}  // namespace

int ExperimentFolder::loadedRuns() const {
    int loaded = 0;
    for (const ExperimentVariant& v : variants)
        for (const ExperimentRun& r : v.runs) loaded += r.run.has_value();
    return loaded;
}

QStringList ExperimentFolder::runErrors() const {
    QStringList errors;
    for (const ExperimentVariant& v : variants)
        for (const ExperimentRun& r : v.runs)
            if (!r.run)
                errors << QStringLiteral("%1, seed %2: %3").arg(v.name).arg(r.seed).arg(r.error);
    return errors;
}

ExperimentFolder readExperimentFolder(const QString& folder) {
    const QDir dir(folder);
    if (!QFileInfo(folder).isDir()) throw Error(folder.toStdString() + ": no such folder");
    const QString summaryPath = dir.absoluteFilePath(QString::fromLatin1(kSummaryFile));
    if (!QFileInfo::exists(summaryPath))
        throw Error(QDir::toNativeSeparators(dir.absolutePath()).toStdString() +
                    " has no summary.json: it is not an experiment folder (qkvlab-cli experiment "
                    "writes one).");
    const nlohmann::json summary = json::readFile(summaryPath.toStdString());
    try {
        return readSummary(summary, dir);
    } catch (const nlohmann::json::exception& e) {
        throw Error(std::string(kSummaryFile) + ": unexpected content: " + e.what());
    }
}

}  // namespace qkv::ui
