#pragma once
// Trained-variant folders as `qkvlab-cli train` leaves them (docs/training.md), made from tiny
// random GPT-2 weights so the Training tab can be tested without the shipped models: config.json,
// model.safetensors, a byte-level vocab.json + merges.txt (every byte one token), and a
// training_log.json whose losses fall with the step (and whose relation accuracy rises).
#include <QString>
#include <filesystem>
#include <nlohmann/json.hpp>

namespace qkv::ui::test {

struct FixtureRun {
    QString tying = QStringLiteral("learned");
    unsigned seed = 7;     // weights, and an offset of the losses
    int entries = 5;       // validation entries, every 100 steps
    bool finished = true;  // false: no "final" entry, as while training
    int context = 16;
    bool stepZero = false;          // an entry at step 0 without a training loss, as newer logs
    bool relationAccuracy = false;  // every entry carries relation_accuracy
};

constexpr int kFixtureLayers = 2;
constexpr int kFixtureHeads = 4;

nlohmann::json fixtureLog(const FixtureRun& run);
void writeVariantFolder(const std::filesystem::path& dir, const FixtureRun& run);

}  // namespace qkv::ui::test
