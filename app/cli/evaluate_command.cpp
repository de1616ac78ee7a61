#include <cstdio>

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
    const train::Evaluation result = train::evaluateStream(ForwardPass(*model, *backend), stream);
    if (args.flag("json")) {
        printJson({{"model", model->name()},
                   {"corpus", corpus},
                   {"loss", result.loss},
                   {"perplexity", result.perplexity},
                   {"tokens", result.tokens}});
        return 0;
    }
    std::printf("%-12s %s\n%-12s %s%s\n%-12s %zu\n%-12s %.4f nats/token\n%-12s %.3f\n", "model",
                model->name().c_str(), "corpus", corpus.c_str(),
                corpus == train::kBuiltinCorpus ? " (validation stories)" : "", "tokens",
                result.tokens, "loss", result.loss, "perplexity", result.perplexity);
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
            "or a text file",
            options, runEvaluate};
}

}  // namespace qkv::cli
