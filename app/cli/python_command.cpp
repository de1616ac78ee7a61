// qkvlab-cli python: the script that recomputes one head's attention with Hugging Face
// transformers (core/report/python_snippet.h), printed for a reader to run.
#include <filesystem>
#include <iostream>

#include "app/cli/cli_common.h"
#include "app/cli/command.h"
#include "core/report/python_snippet.h"

namespace qkv::cli {
namespace {

AttentionKind readBlock(const Arguments& args, const Architecture& a) {
    const std::string block = args.value("block").value_or("encoder");
    AttentionKind kind;
    if (block == "encoder" || block == "self")
        kind = AttentionKind::Self;
    else if (block == "decoder")
        kind = AttentionKind::DecoderSelf;
    else if (block == "cross")
        kind = AttentionKind::Cross;
    else
        throw UsageError("--block takes encoder, decoder or cross, not '" + block + "'");
    if (kind != AttentionKind::Self && !a.isEncoderDecoder())
        throw UsageError("--block " + block + " is for encoder-decoder models; " + a.family +
                         " has self-attention only");
    return kind;
}

// The location as given: a Hub id with its revision, or the folder's absolute path.
ModelSource readSource(const Arguments& args) {
    const std::string location = args.required("model");
    std::error_code ec;
    if (std::filesystem::is_directory(location, ec)) return modelSourceOfFolder(location);
    return {location, args.value("revision").value_or("main")};
}

int runPython(const Arguments& args) {
    auto model = openModel(args);
    const Architecture& a = model->architecture();
    const Input input = readInput(*model, args);
    PythonCheck check;
    check.model = readSource(args);
    check.architecture = a;
    check.ids = input.ids;
    check.text = args.value("text").value_or("");
    check.targetIds = input.targetIds;
    check.targetText = args.value("target-text").value_or("");
    check.kind = readBlock(args, a);
    const bool decoder = check.kind != AttentionKind::Self;
    check.layer = args.integer("layer", 0, (decoder ? a.decoderLayers : a.layers) - 1).value_or(0);
    check.head = args.integer("head", 0, (decoder ? a.decoderHeads : a.heads) - 1).value_or(0);
    check.config = readConfig(args);
    std::cout << pythonSnippet(check);
    return 0;
}

}  // namespace

Command pythonCommand() {
    std::vector<OptionSpec> options = forwardOptions();
    options.push_back({"layer", "L", "the head's layer (0-based, default 0)"});
    options.push_back({"head", "H", "the head (0-based, default 0)"});
    options.push_back({"block", "encoder|decoder|cross",
                       "encoder-decoder models: the encoder's self-attention (default), the "
                       "decoder's, or cross-attention"});
    return {"python",
            "a Python script that recomputes one head's attention with Hugging Face transformers",
            options, runPython};
}

}  // namespace qkv::cli
