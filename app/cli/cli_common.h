#pragma once
// What several commands share: opening the model, turning --text / --ids into tokens, the
// backend and configuration options, printing JSON.
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "app/cli/arguments.h"
#include "core/analysis/head_metrics.h"
#include "core/backend/backend.h"
#include "core/model/model.h"
#include "core/model/w_configuration.h"

namespace qkv::cli {

// Option specs reused by several commands.
// --model (a folder or a Hub id) and --revision (of a Hub id).
std::vector<OptionSpec> modelOptions();
std::vector<OptionSpec> inputOptions();   // --text, --ids, --truncate
std::vector<OptionSpec> configOptions();  // --config, --scale-outside, --mask-self
// --model, then inputOptions() and configOptions(): what every command that runs a forward takes.
std::vector<OptionSpec> forwardOptions();
OptionSpec backendOption();
OptionSpec jsonOption();
OptionSpec gqaPairingOption();      // --gqa-pairing hf|modulo
OptionSpec noCopyingScoreOption();  // --no-copying-score

// The folder --model names: itself, or a Hub id's snapshot in the cache at --revision,
// downloaded first (with progress on a terminal) when the cache lacks it and not offline.
std::filesystem::path modelFolder(const Arguments& args);
// The same for a folder or Hub id given directly.
std::filesystem::path modelFolder(const std::string& location, const std::string& revision);
std::unique_ptr<Model> openModel(const Arguments& args);

struct Input {
    std::vector<int> ids;
    std::vector<std::string> pieces;      // vocabulary entries (HF convert_ids_to_tokens)
    std::vector<std::string> labels;      // as shown to a person (core/tokenize/token_label.h)
    std::optional<size_t> truncatedFrom;  // token count before --truncate cut it
    // Encoder-decoder models: the decoder's input, from its start token on.
    std::vector<int> targetIds;
    std::vector<std::string> targetPieces, targetLabels;
};

// From --text (tokenized by the model's tokenizer) or --ids. Longer than the model's context:
// an error, or with --truncate the first tokens that fit (a note goes to stderr). For an
// encoder-decoder model also the decoder's input: the start token, then --target-text's tokens
// (its target side, without the closing </s>), or --target-ids as given; the start token alone
// without either.
Input readInput(const Model& model, const Arguments& args);
bool hasInput(const Arguments& args);

WConfiguration readConfig(const Arguments& args);
// --gqa-pairing and --no-copying-score as analysis options of `kind`.
AnalysisOptions readAnalysisOptions(const Arguments& args,
                                    AttentionKind kind = AttentionKind::Self);
std::unique_ptr<Backend> openBackend(const Arguments& args);

// {"model", "tokens", "ids"[, "truncated_from"]}: the fields every JSON document starts with.
nlohmann::ordered_json inputJson(const Model& model, const Input& input);
// Adds "config" (its name) and "options" {"scale_outside", "mask_self", "normalize_keys"}.
void addConfigJson(nlohmann::ordered_json& doc, const WConfiguration& config);

void printJson(const nlohmann::ordered_json& doc);

}  // namespace qkv::cli
