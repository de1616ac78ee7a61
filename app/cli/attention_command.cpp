#include <cstdio>
#include <iostream>

#include "app/cli/cli_common.h"
#include "app/cli/command.h"
#include "app/cli/terminal_progress.h"
#include "core/model/forward.h"
#include "core/report/json_report.h"

namespace qkv::cli {
namespace {

void printMatrix(const char* title, const RowMatrixXf& m, const std::vector<std::string>& rows,
                 const std::vector<std::string>& columns) {
    std::printf("  %s\n  %12s", title, "");
    for (size_t j = 0; j < columns.size(); ++j) std::printf(" %8.8s", columns[j].c_str());
    std::printf("\n");
    for (Eigen::Index i = 0; i < m.rows(); ++i) {
        std::printf("  %12.12s", rows[i].c_str());
        for (Eigen::Index j = 0; j < m.cols(); ++j) std::printf(" %8.4f", m(i, j));
        std::printf("\n");
    }
}

// Every captured head of one trace; `kind` names the attention ("cross-attention ").
void printTrace(const std::string& kind, const AttentionTrace& trace,
                const CaptureSelection& capture, const std::vector<std::string>& queries,
                const std::vector<std::string>& keys) {
    for (int l = 0; l < trace.layerCount(); ++l)
        for (int h = 0; h < trace.headCount(); ++h) {
            if (!capture.includes(l, h)) continue;
            std::printf("\n%slayer %d head %d\n", kind.c_str(), l, h);
            printMatrix("attention (rows: queries, columns: keys)", trace.probabilities(l, h),
                        queries, keys);
            if (capture.scores)
                printMatrix("scores (scaled, before masking)", trace.scores(l, h), queries, keys);
        }
}

int runAttention(const Arguments& args) {
    auto model = openModel(args);
    const Architecture& c = model->architecture();
    const Input input = readInput(*model, args);
    ForwardRequest request;
    request.ids = input.ids;
    request.targetIds = input.targetIds;
    request.config = readConfig(args);
    request.capture.layer = args.integer("layer", 0, std::max(c.layers, c.decoderLayers) - 1);
    request.capture.head = args.integer("head", 0, std::max(c.heads, c.decoderHeads) - 1);
    request.capture.scores = !args.flag("no-scores");
    request.logits = LogitsMode::None;
    request.progress = terminalProgress("forward");

    auto backend = openBackend(args);
    const ForwardResult result = ForwardPass(*model, *backend).run(request);

    if (args.flag("json")) {
        nlohmann::ordered_json doc = inputJson(*model, input);
        addConfigJson(doc, request.config);
        const bool vectors = args.flag("vectors");
        if (c.isEncoderDecoder()) {
            doc["encoder_layers"] = traceJson(result.trace, request.capture, vectors);
            doc["decoder_layers"] = traceJson(result.decoderTrace, request.capture, vectors);
            doc["cross_layers"] = traceJson(result.crossTrace, request.capture, vectors);
        } else {
            doc["layers"] = traceJson(result.trace, request.capture, vectors);
        }
        printJson(doc);
        return 0;
    }
    std::printf("model %s, config %s, %zu tokens, backend %s\n", model->name().c_str(),
                request.config.name().c_str(), input.ids.size(), backend->name().c_str());
    if (!c.isEncoderDecoder()) {
        printTrace("", result.trace, request.capture, input.pieces, input.pieces);
        return 0;
    }
    printTrace("encoder ", result.trace, request.capture, input.pieces, input.pieces);
    printTrace("decoder ", result.decoderTrace, request.capture, input.targetPieces,
               input.targetPieces);
    printTrace("cross-attention ", result.crossTrace, request.capture, input.targetPieces,
               input.pieces);
    return 0;
}

}  // namespace

Command attentionCommand() {
    std::vector<OptionSpec> options = forwardOptions();
    options.push_back({"layer", "L", "only this layer (0-based)"});
    options.push_back({"head", "H", "only this head (0-based)"});
    options.push_back({"no-scores", "", "leave out the raw score matrices"});
    options.push_back({"vectors", "", "with --json: each head's q, k and v rows too"});
    options.push_back(backendOption());
    options.push_back(jsonOption());
    return {"attention", "every head's attention (and raw scores) for a sentence", options,
            runAttention};
}

}  // namespace qkv::cli
