#include <algorithm>
#include <cstdio>
#include <string>

#include "app/cli/cli_common.h"
#include "app/cli/command.h"
#include "core/tokenize/token_label.h"

namespace qkv::cli {
namespace {

int runTokenize(const Arguments& args) {
    // Tokenizing needs config.json and the tokenizer, not the weights.
    auto model = Model::openTokenizerOnly(modelFolder(args));
    const Input input = readInput(*model, args);
    if (args.flag("json")) {
        printJson(inputJson(*model, input));
        return 0;
    }
    std::printf("%5s  %8s  %-14s %s\n", "pos", "id", "token", "piece");
    for (size_t i = 0; i < input.ids.size(); ++i) {
        // Padded by display width: the piece column lines up after non-ASCII tokens too.
        const std::string& label = input.labels[i];
        std::printf("%5zu  %8d  %s%s %s\n", i, input.ids[i], label.c_str(),
                    std::string(std::max(0, 14 - displayWidth(label)), ' ').c_str(),
                    input.pieces[i].c_str());
    }
    return 0;
}

}  // namespace

Command tokenizeCommand() {
    auto options = inputOptions();
    const auto model = modelOptions();
    options.insert(options.begin(), model.begin(), model.end());
    options.push_back(jsonOption());
    return {"tokenize", "token ids and pieces of a sentence", options, runTokenize};
}

}  // namespace qkv::cli
