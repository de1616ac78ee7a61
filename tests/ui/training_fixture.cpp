#include "tests/ui/training_fixture.h"

#include <cmath>

#include "core/tokenize/byte_level.h"
#include "tests/support/fixture_writer.h"

namespace qkv::ui::test {

nlohmann::json fixtureLog(const FixtureRun& run) {
    const double offset = 0.01 * (run.seed % 10);
    nlohmann::json steps = nlohmann::json::array();
    if (run.stepZero) steps.push_back({{"step", 0}, {"val_loss", 5.5 + offset}});
    for (int i = 1; i <= run.entries; ++i)
        steps.push_back({{"step", 100 * i},
                         {"train_loss", 3.0 / i + offset},
                         {"val_loss", 2.5 / i + offset + 0.05},
                         {"tokens_per_s", 1000.0 + 10 * i},
                         {"learning_rate", 0.006}});
    if (run.relationAccuracy)
        for (nlohmann::json& entry : steps)
            entry["relation_accuracy"] = 0.5 + entry["step"].get<int>() / 2000.0 + offset;
    nlohmann::json log = {{"command", "qkvlab-cli train --config " + run.tying.toStdString()},
                          {"seed", 1},
                          {"config",
                           {{"attention", run.tying.toStdString()},
                            {"layers", kFixtureLayers},
                            {"heads", kFixtureHeads},
                            {"parameters", 10000 + static_cast<int>(run.seed)},
                            {"steps", 100 * run.entries},
                            {"context", run.context}}},
                          {"steps", steps},
                          {"completed_steps", 100 * run.entries},
                          {"finished", run.finished},
                          {"tokens_per_s", 1234.5}};
    if (run.finished) {
        const nlohmann::json& last = steps.back();
        log["final"] = {{"step", last["step"]},
                        {"train_loss", last["train_loss"]},
                        {"val_loss", last["val_loss"]},
                        {"val_perplexity", std::exp(last["val_loss"].get<double>())}};
    }
    return log;
}

void writeVariantFolder(const std::filesystem::path& dir, const FixtureRun& run) {
    ::qkv::test::TinyModelSpec spec;
    spec.layers = kFixtureLayers;
    spec.heads = kFixtureHeads;
    spec.vocab = 257;
    spec.context = run.context;
    spec.seed = run.seed;
    ::qkv::test::writeTinyGpt2(dir, spec);
    nlohmann::json vocab = nlohmann::json::object();
    for (int b = 0; b < 256; ++b) vocab[byte_level::charOf(static_cast<unsigned char>(b))] = b;
    vocab["<|endoftext|>"] = 256;
    ::qkv::test::writeText(dir / "vocab.json", vocab.dump());
    ::qkv::test::writeText(dir / "merges.txt", "#version: 0.2\n");
    ::qkv::test::writeText(dir / "training_log.json", fixtureLog(run).dump(2));
}

}  // namespace qkv::ui::test
