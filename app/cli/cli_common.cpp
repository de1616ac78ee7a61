#include "app/cli/cli_common.h"

#include <cerrno>
#include <cstdlib>
#include <iostream>

#include "app/cli/terminal_progress.h"
#include "core/hub/model_location.h"
#include "core/model/forward.h"
#include "core/model/model_input.h"
#include "core/tokenize/token_label.h"
#include "core/util/error.h"
#include "gpu/backend_factory.h"

namespace qkv::cli {

std::vector<OptionSpec> modelOptions() {
    return {{"model", "DIR|FILE|ID",
             "model folder (config.json, *.safetensors, tokenizer files), GGUF file "
             "(also ollama:NAME[:TAG], lmstudio:PUBLISHER/MODEL/FILE) or Hugging Face model id "
             "(from the cache, else downloaded)"},
            {"revision", "REV", "branch, tag or commit of a model id (default main)"}};
}

std::vector<OptionSpec> inputOptions() {
    return {
        {"text", "TEXT", "the sentence to run (UTF-8)"},
        {"ids", "1,2,3", "token ids instead of text (no tokenizer needed)"},
        {"truncate", "", "keep the first tokens that fit the model's context instead of failing"},
        {"target-text", "TEXT",
         "encoder-decoder models: the target sentence the decoder reads (default: none, the "
         "decoder start token alone)"},
        {"target-ids", "1,2,3",
         "encoder-decoder models: the decoder's input ids, its start token first"}};
}

std::vector<OptionSpec> configOptions() {
    return {{"config", "NAME",
             "learned (default), shared-qk, tied-kv, single-w, sym-scores, skew-scores, or "
             "q=Q,k=Q,v=V"},
            {"scale-outside", "", "apply 1/sqrt(d_k) after the softmax instead of before"},
            {"mask-self", "", "tokens may not attend to themselves (Reformer)"}};
}

std::vector<OptionSpec> forwardOptions() {
    std::vector<OptionSpec> options = modelOptions();
    for (auto& o : inputOptions()) options.push_back(o);
    for (auto& o : configOptions()) options.push_back(o);
    return options;
}

OptionSpec backendOption() {
    return {"backend", "auto|cpu|vulkan", "compute backend (default auto)"};
}
OptionSpec jsonOption() { return {"json", "", "print JSON instead of a table"}; }

OptionSpec gqaPairingOption() {
    return {"gqa-pairing", "hf|modulo",
            "grouped-query models: query head h reads key head h / group (hf, the default, as "
            "the model computes) or h % kv_heads (modulo, as published GQA figures paired them)"};
}

OptionSpec noCopyingScoreOption() {
    return {"no-copying-score", "",
            "skip the OV copying score (its W_U W_E product over the vocabulary takes minutes "
            "on 7-8B models)"};
}

AnalysisOptions readAnalysisOptions(const Arguments& args, AttentionKind kind) {
    AnalysisOptions options;
    options.kind = kind;
    const std::string pairing = args.value("gqa-pairing").value_or("hf");
    if (pairing == "hf")
        options.pairing = GqaPairing::HuggingFace;
    else if (pairing == "modulo")
        options.pairing = GqaPairing::Modulo;
    else
        throw UsageError("--gqa-pairing takes hf or modulo, not '" + pairing + "'");
    options.copyingScores = !args.flag("no-copying-score");
    options.roundTripProgress = terminalProgress("copying scores: W_U W_E", "vocabulary block");
    return options;
}

std::filesystem::path modelFolder(const Arguments& args) {
    const std::string location = args.required("model");
    std::error_code ec;
    if (args.has("revision") && std::filesystem::is_directory(location, ec))
        throw UsageError("--revision applies to a Hugging Face model id, not to a folder");
    return modelFolder(location, args.value("revision").value_or("main"));
}

std::filesystem::path modelFolder(const std::string& location, const std::string& revision) {
    return locateModel(location, revision, terminalDownloadProgress(location));
}

std::unique_ptr<Model> openModel(const Arguments& args) { return Model::open(modelFolder(args)); }

bool hasInput(const Arguments& args) { return args.has("text") || args.has("ids"); }

namespace {

std::vector<int> parseIds(const std::string& text) {
    std::vector<int> ids;
    size_t pos = 0;
    while (pos <= text.size()) {
        const size_t comma = std::min(text.find(',', pos), text.size());
        const std::string item = text.substr(pos, comma - pos);
        errno = 0;
        char* end = nullptr;
        const long id = std::strtol(item.c_str(), &end, 10);
        if (item.empty() || *end != '\0' || errno != 0 || id < 0 || id > 0x7fffffff)
            throw UsageError("--ids: '" + item +
                             "' is not a token id (expected e.g. --ids 464,3807)");
        ids.push_back(static_cast<int>(id));
        pos = comma + 1;
    }
    return ids;
}

}  // namespace

namespace {

void readTarget(const Model& model, const Arguments& args, Input& input) {
    const Architecture& c = model.architecture();
    const bool given = args.has("target-text") || args.has("target-ids");
    if (!c.isEncoderDecoder()) {
        if (given)
            throw UsageError("--target-text and --target-ids are for encoder-decoder models; " +
                             model.name() + " (" + c.family + ") is not one");
        return;
    }
    if (args.has("target-text") && args.has("target-ids"))
        throw UsageError("give at most one of --target-text or --target-ids");
    if (auto ids = args.value("target-ids"))
        input.targetIds = parseIds(*ids);
    else if (auto text = args.value("target-text"))
        input.targetIds = model.targetIds(*text);
    else
        input.targetIds = {c.decoderStartToken};
    validateIds(c, input.targetIds);
    for (int id : input.targetIds) input.targetPieces.push_back(model.pieceOrNumber(id));
}

}  // namespace

Input readInput(const Model& model, const Arguments& args) {
    if (args.has("text") == args.has("ids"))
        throw UsageError("give exactly one of --text or --ids");
    Input input;
    const auto text = args.value("text");
    if (text && text->find_first_not_of(" \t\r\n") == std::string::npos)
        throw Error("--text is empty: type a sentence");
    if (text && !model.tokenizer())
        throw Error(model.name() + ": cannot tokenize text without a tokenizer (" +
                    model.tokenizerError() + "); give token ids with --ids instead");
    // Cut to the context here only when asked: else the error says how to ask.
    const ModelInput read =
        text ? inputFromText(model, *text, OverContext::Truncate)
             : inputFromIds(model, parseIds(*args.value("ids")), OverContext::Truncate);
    const std::size_t context = read.tokens.size();
    if (read.truncatedFrom && !args.flag("truncate"))
        throw Error("the input has " + std::to_string(*read.truncatedFrom) + " tokens but " +
                    model.name() + " accepts at most " + std::to_string(context) +
                    " (use --truncate to keep the first " + std::to_string(context) + ")");
    for (const Token& token : read.tokens) {
        input.ids.push_back(token.id);
        input.pieces.push_back(token.piece);
    }
    input.truncatedFrom = read.truncatedFrom;
    if (input.truncatedFrom)
        std::cerr << "note: input truncated from " << *input.truncatedFrom << " to "
                  << input.ids.size() << " tokens (the model's context)\n";
    validateIds(model.architecture(), input.ids);
    readTarget(model, args, input);
    auto labels = [&](const std::vector<int>& ids, const std::vector<std::string>& pieces) {
        std::vector<std::string> out;
        for (size_t i = 0; i < ids.size(); ++i)
            out.push_back(tokenLabel(model.tokenizer(), ids[i], pieces[i]));
        return out;
    };
    input.labels = labels(input.ids, input.pieces);
    input.targetLabels = labels(input.targetIds, input.targetPieces);
    return input;
}

WConfiguration readConfig(const Arguments& args) {
    WConfiguration config = WConfiguration::parse(args.value("config").value_or("learned"));
    // The flags add to what the configuration's name sets (scale-outside, shared-qk-reformer).
    config.scaleOutside = config.scaleOutside || args.flag("scale-outside");
    config.maskSelf = config.maskSelf || args.flag("mask-self");
    return config;
}

std::unique_ptr<Backend> openBackend(const Arguments& args) {
    return createBackend(args.value("backend").value_or("auto"));
}

nlohmann::ordered_json inputJson(const Model& model, const Input& input) {
    nlohmann::ordered_json doc = {
        {"model", model.name()}, {"tokens", input.pieces}, {"ids", input.ids}};
    if (input.truncatedFrom) doc["truncated_from"] = *input.truncatedFrom;
    if (!input.targetIds.empty()) {
        doc["target_tokens"] = input.targetPieces;
        doc["target_ids"] = input.targetIds;
    }
    return doc;
}

void addConfigJson(nlohmann::ordered_json& doc, const WConfiguration& config) {
    doc["config"] = config.name();
    doc["options"] = {{"scale_outside", config.scaleOutside},
                      {"mask_self", config.maskSelf},
                      {"normalize_keys", config.normalizeKeys}};
}

void printJson(const nlohmann::ordered_json& doc) {
    std::cout << doc.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace) << "\n";
}

}  // namespace qkv::cli
