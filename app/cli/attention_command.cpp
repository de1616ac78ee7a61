#include <cstdio>
#include <iostream>

#include "app/cli/cli_common.h"
#include "app/cli/command.h"
#include "app/cli/terminal_progress.h"
#include "core/model/forward.h"
#include "core/report/json_report.h"

namespace qkv::cli {
namespace {

void printMatrix(const char* title, const RowMatrixXf& m, const std::vector<std::string>& labels) {
    std::printf("  %s\n  %12s", title, "");
    for (size_t j = 0; j < labels.size(); ++j) std::printf(" %8.8s", labels[j].c_str());
    std::printf("\n");
    for (Eigen::Index i = 0; i < m.rows(); ++i) {
        std::printf("  %12.12s", labels[i].c_str());
        for (Eigen::Index j = 0; j < m.cols(); ++j) std::printf(" %8.4f", m(i, j));
        std::printf("\n");
    }
}

int runAttention(const Arguments& args) {
    auto model = openModel(args);
    const Architecture& c = model->architecture();
    const Input input = readInput(*model, args);
    ForwardRequest request;
    request.ids = input.ids;
    request.config = readConfig(args);
    request.capture.layer = args.integer("layer", 0, c.layers - 1);
    request.capture.head = args.integer("head", 0, c.heads - 1);
    request.capture.scores = !args.flag("no-scores");
    request.logits = LogitsMode::None;
    request.progress = terminalProgress("forward");

    auto backend = openBackend(args);
    const ForwardResult result = ForwardPass(*model, *backend).run(request);

    if (args.flag("json")) {
        nlohmann::ordered_json doc = inputJson(*model, input);
        addConfigJson(doc, request.config);
        doc["layers"] = traceJson(result.trace, request.capture);
        printJson(doc);
        return 0;
    }
    std::printf("model %s, config %s, %zu tokens, backend %s\n", model->name().c_str(),
                request.config.name().c_str(), input.ids.size(), backend->name().c_str());
    for (int l = 0; l < c.layers; ++l)
        for (int h = 0; h < c.heads; ++h) {
            if (!request.capture.includes(l, h)) continue;
            std::printf("\nlayer %d head %d\n", l, h);
            printMatrix("attention (rows: queries, columns: keys)",
                        result.trace.probabilities(l, h), input.pieces);
            if (request.capture.scores)
                printMatrix("scores (scaled, before masking)", result.trace.scores(l, h),
                            input.pieces);
        }
    return 0;
}

}  // namespace

Command attentionCommand() {
    std::vector<OptionSpec> options = forwardOptions();
    options.push_back({"layer", "L", "only this layer (0-based)"});
    options.push_back({"head", "H", "only this head (0-based)"});
    options.push_back({"no-scores", "", "leave out the raw score matrices"});
    options.push_back(backendOption());
    options.push_back(jsonOption());
    return {"attention", "every head's attention (and raw scores) for a sentence", options,
            runAttention};
}

}  // namespace qkv::cli
