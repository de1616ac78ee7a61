#include <cstdio>

#include "app/cli/cli_common.h"
#include "app/cli/command.h"
#include "app/cli/terminal_progress.h"
#include "core/analysis/head_metrics.h"
#include "core/model/forward.h"
#include "core/report/json_report.h"

namespace qkv::cli {
namespace {

int runAnalyze(const Arguments& args) {
    auto model = openModel(args);
    const WConfiguration config = readConfig(args);
    std::optional<Input> input;
    std::optional<ForwardResult> forward;
    if (hasInput(args)) {
        input = readInput(*model, args);
        ForwardRequest request;
        request.ids = input->ids;
        request.config = config;
        request.capture.probabilities = false;
        request.logits = LogitsMode::None;
        request.progress = terminalProgress("forward");
        auto backend = openBackend(args);
        forward = ForwardPass(*model, *backend).run(request);
    }
    const ModelMetrics metrics = analyzeModel(*model, config, forward ? &forward->trace : nullptr,
                                              nullptr, terminalProgress("analyze"));

    if (args.flag("json")) {
        nlohmann::ordered_json doc =
            input ? inputJson(*model, *input) : nlohmann::ordered_json{{"model", model->name()}};
        addConfigJson(doc, config);
        doc.update(metricsJson(metrics));
        printJson(doc);
        return 0;
    }
    std::printf("model %s, config %s; median layer W_QK symmetry %.4f\n\n", model->name().c_str(),
                config.name().c_str(), metrics.medianLayerWqkSymmetry);
    std::printf("%5s %5s %9s %5s %9s %8s %8s %8s%s\n", "layer", "head", "W_QK sym", "rank",
                "eig.pos", "QK sim", "QV sim", "KV sim", forward ? "  score sym" : "");
    for (size_t l = 0; l < metrics.layers.size(); ++l) {
        const LayerMetrics& layer = metrics.layers[l];
        for (size_t h = 0; h < layer.heads.size(); ++h) {
            const HeadMetrics& m = layer.heads[h];
            std::printf("%5zu %5zu %9.4f %5d %9.4f %8.4f %8.4f %8.4f", l, h, m.wqkSymmetry,
                        m.wqkRank, m.eigenPositivity, m.qkSimilarity, m.qvSimilarity,
                        m.kvSimilarity);
            if (m.scoreSymmetry) std::printf(" %10.4f", *m.scoreSymmetry);
            std::printf("\n");
        }
        std::printf("%5zu %5s %9.4f   (whole layer)\n", l, "all", layer.wqkSymmetry);
    }
    return 0;
}

}  // namespace

Command analyzeCommand() {
    std::vector<OptionSpec> options = forwardOptions();
    options.push_back(backendOption());
    options.push_back(jsonOption());
    return {"analyze",
            "per-head symmetry, rank and subspace similarity of W_Q, W_K, W_V (score symmetry "
            "with --text)",
            options, runAnalyze};
}

}  // namespace qkv::cli
