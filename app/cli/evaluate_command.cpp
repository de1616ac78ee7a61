#include <cstdio>
#include <optional>

#include "app/cli/cli_common.h"
#include "app/cli/command.h"
#include "core/model/forward.h"
#include "core/train/corpus.h"
#include "core/train/evaluation.h"
#include "core/util/error.h"

namespace qkv::cli {
namespace {

int runEvaluate(const Arguments& args) {
    auto model = openModel(args);
    if (!model->tokenizer())
        throw Error(model->name() +
                    ": cannot evaluate text without a tokenizer: " + model->tokenizerError());
    const std::string corpus = args.value("corpus").value_or(train::kBuiltinCorpus);
    const std::vector<std::string> documents = corpus == train::kBuiltinCorpus
                                                   ? train::builtinValidationStories()
                                                   : train::fileDocuments(corpus);
    const std::vector<int> stream = train::tokenStream(*model->tokenizer(), documents);
    auto backend = openBackend(args);
    const ForwardPass forward(*model, *backend);
    // A model the lab trained with scale-outside or shared-qk-reformer runs under that forward.
    const WConfiguration config = train::trainedConfiguration(model->folder());
    const train::Evaluation result = train::evaluateStream(forward, stream, config);
    // The relation probe asks about the built-in stories' relations.
    std::optional<train::RelationScore> relations;
    if (corpus == train::kBuiltinCorpus)
        relations = train::evaluateRelations(
            forward, train::tokenizeRelations(*model->tokenizer(), train::relationPairs()), config);
    if (args.flag("json")) {
        nlohmann::ordered_json doc = {{"model", model->name()}, {"corpus", corpus}};
        addConfigJson(doc, config);  // what the model was trained under
        doc.update(
            {{"loss", result.loss}, {"perplexity", result.perplexity}, {"tokens", result.tokens}});
        if (relations) {
            doc["relation_accuracy"] = relations->accuracy;
            doc["relation_pairs"] = relations->pairs;
            doc["relation_accuracy_by_kind"] = relations->accuracyByKind;
        }
        printJson(doc);
        return 0;
    }
    std::printf(
        "%-12s %s\n%-12s %s%s\n%-12s %s\n%-12s %zu\n%-12s %.4f nats/token\n%-12s %.3f\n", "model",
        model->name().c_str(), "corpus", corpus.c_str(),
        corpus == train::kBuiltinCorpus ? " (validation stories)" : "", "config",
        (config.name() + (config.scaleOutside ? ", scale outside the softmax" : "")).c_str(),
        "tokens", result.tokens, "loss", result.loss, "perplexity", result.perplexity);
    if (relations) {
        std::printf("%-12s %.3f of %d pairs (", "relations", relations->accuracy, relations->pairs);
        const char* separator = "";
        for (const auto& [kind, accuracy] : relations->accuracyByKind) {
            std::printf("%s%s %.3f", separator, kind.c_str(), accuracy);
            separator = ", ";
        }
        std::printf(")\n");
    }
    return 0;
}

}  // namespace

Command evaluateCommand() {
    auto options = modelOptions();
    options.insert(options.end(), {{"corpus", "FILE|builtin",
                                    "UTF-8 text to score (default: the built-in validation "
                                    "stories)"},
                                   backendOption(),
                                   jsonOption()});
    return {"evaluate",
            "mean next-token loss and perplexity of a model on the built-in validation stories "
            "or a text file, and on the stories its relation probe accuracy",
            options, runEvaluate};
}

}  // namespace qkv::cli
