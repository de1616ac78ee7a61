#include "ui/training/training_run.h"

#include <QDir>
#include <QFile>
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>

#include "core/util/error.h"

namespace qkv::ui {
namespace {

nlohmann::json readJson(const QString& path) {
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        throw Error(path.toStdString() + ": " + file.errorString().toStdString());
    const QByteArray bytes = file.readAll();
    try {
        return nlohmann::json::parse(bytes.constBegin(), bytes.constEnd());
    } catch (const nlohmann::json::exception& e) {
        throw Error(path.toStdString() + ": not valid JSON: " + e.what());
    }
}

TrainingPoint readPoint(const nlohmann::json& entry) {
    TrainingPoint p;
    p.step = entry.at("step").get<int>();
    // The step-0 entry measures the untrained model: it may have no training loss yet.
    const auto train = entry.find("train_loss");
    p.trainLoss = train != entry.end() && train->is_number()
                      ? train->get<double>()
                      : std::numeric_limits<double>::quiet_NaN();
    p.valLoss = entry.at("val_loss").get<double>();
    p.tokensPerSecond = entry.value("tokens_per_s", 0.0);
    if (const auto accuracy = entry.find("relation_accuracy");
        accuracy != entry.end() && accuracy->is_number())
        p.relationAccuracy = accuracy->get<double>();
    return p;
}

TrainingRun readRun(const nlohmann::json& log) {
    TrainingRun run;
    const nlohmann::json& config = log.at("config");
    run.attention = QString::fromStdString(config.value("attention", std::string("learned")));
    run.plannedSteps = config.value("steps", 0);
    run.parameters = config.value("parameters", 0LL);
    for (const nlohmann::json& entry : log.value("steps", nlohmann::json::array()))
        run.points.push_back(readPoint(entry));
    run.finished = log.value("finished", false);
    run.tokensPerSecond = log.value("tokens_per_s", 0.0);
    if (const auto final = log.find("final"); final != log.end() && final->is_object()) {
        run.completedSteps = final->at("step").get<int>();
        run.finalTrainLoss = final->value("train_loss", nlohmann::json()).is_number()
                                 ? final->at("train_loss").get<double>()
                                 : std::numeric_limits<double>::quiet_NaN();
        run.finalValLoss = final->at("val_loss").get<double>();
        run.perplexity = final->value("val_perplexity", std::exp(run.finalValLoss));
    } else if (!run.points.empty()) {
        const TrainingPoint& last = run.points.back();
        run.completedSteps = last.step;
        run.finalTrainLoss = last.trainLoss;
        run.finalValLoss = last.valLoss;
        run.perplexity = std::exp(last.valLoss);
    }
    run.completedSteps = log.value("completed_steps", run.completedSteps);
    if (run.tokensPerSecond <= 0 && !run.points.empty())
        run.tokensPerSecond = run.points.back().tokensPerSecond;
    return run;
}

}  // namespace

TrainingRun readTrainingLog(const QString& path) {
    if (!QFile::exists(path)) throw Error(path.toStdString() + ": missing");
    try {
        return readRun(readJson(path));
    } catch (const nlohmann::json::exception& e) {
        throw Error(path.toStdString() + ": unexpected content: " + e.what());
    }
}

std::optional<TrainingRun> readTrainingRun(const QString& folder) {
    const QDir dir(folder);
    const QString logPath = dir.filePath(QStringLiteral("training_log.json"));
    if (!QFile::exists(logPath)) return std::nullopt;
    TrainingRun run = readTrainingLog(logPath);
    const QString evaluationPath = dir.filePath(QStringLiteral("evaluation.json"));
    if (QFile::exists(evaluationPath)) {
        try {
            const nlohmann::json evaluation = readJson(evaluationPath);
            if (evaluation.contains("loss")) run.evaluationLoss = evaluation["loss"].get<double>();
        } catch (const std::exception&) {
            // The log holds the same validation loss; a broken extra file costs nothing.
        }
    }
    return run;
}

}  // namespace qkv::ui
