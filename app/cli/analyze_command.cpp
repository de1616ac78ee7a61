#include <cstdio>

#include "app/cli/cli_common.h"
#include "app/cli/command.h"
#include "app/cli/terminal_progress.h"
#include "core/analysis/head_metrics.h"
#include "core/analysis/hidden_keys.h"
#include "core/analysis/latent_forms.h"
#include "core/model/forward.h"
#include "core/report/json_report.h"

namespace qkv::cli {
namespace {

// `withSinks`: the mean sink share column (gpt-oss, with an input); `withRotary`: latent
// attention's rotary part.
void printMetrics(const Architecture& c, const ModelMetrics& metrics, bool withScores,
                  bool withSinks, bool withRotary) {
    std::printf("%5s %5s %9s %9s %5s %9s %8s %8s %8s %7s %8s%s%s%s\n", "layer", "head", "W_QK sym",
                "W_QK dir", "rank", "eig.pos", "QK sim", "QV sim", "KV sim", "OV rank", "OV copy",
                withScores ? "  score sym" : "", withSinks ? "  sink share" : "",
                withRotary ? "  rot rank   rot sym" : "");
    for (size_t l = 0; l < metrics.layers.size(); ++l) {
        const LayerMetrics& layer = metrics.layers[l];
        for (size_t h = 0; h < layer.heads.size(); ++h) {
            const HeadMetrics& m = layer.heads[h];
            std::printf("%5zu %5zu %9.4f %9.4f %5d %9.4f %8.4f %8.4f %8.4f %7d", l, h,
                        m.wqkSymmetry, m.wqkDirectionality, m.wqkRank, m.eigenPositivity,
                        m.qkSimilarity, m.qvSimilarity, m.kvSimilarity, m.ovRank);
            if (m.ovCopyingScore)
                std::printf(" %8.4f", *m.ovCopyingScore);
            else
                std::printf(" %8s", "-");
            if (m.scoreSymmetry) std::printf(" %10.4f", *m.scoreSymmetry);
            if (withSinks && m.sinkShare) std::printf(" %11.4f", *m.sinkShare);
            if (withRotary && m.rotaryPart)
                std::printf(" %9d %9.4f", m.rotaryPart->rank, m.rotaryPart->symmetry);
            std::printf("\n");
        }
        if (layer.heads.empty())  // a block without a token mixer, or a short convolution
            std::printf("%5zu %5s %9s %9s   (no heads: %s)\n", l, "-", "-", "-",
                        c.mixerOf(static_cast<int>(l)) == Mixer::ShortConv ? "a short convolution"
                                                                           : "an MLP block");
        else
            std::printf("%5zu %5s %9.4f %9.4f   (whole layer)\n", l, "all", layer.wqkSymmetry,
                        layer.wqkDirectionality);
    }
}

// One attention kind's metrics; `name` is its JSON key and table title.
struct Block {
    const char* name;
    AttentionKind kind;
    const AttentionTrace* trace;
};

int runAnalyze(const Arguments& args) {
    auto model = openModel(args);
    const Architecture& c = model->architecture();
    const WConfiguration config = readConfig(args);
    std::optional<Input> input;
    std::optional<ForwardResult> forward;
    if (hasInput(args)) {
        input = readInput(*model, args);
        ForwardRequest request;
        request.ids = input->ids;
        request.targetIds = input->targetIds;
        request.config = config;
        // The sink share and what a mask hides (the dropped mass) read them.
        request.capture.probabilities = c.attentionSinks || someLayerHidesKeys(c);
        request.logits = LogitsMode::None;
        request.progress = terminalProgress("forward");
        auto backend = openBackend(args);
        forward = ForwardPass(*model, *backend).run(request);
    }
    std::vector<Block> blocks{
        {"encoder", AttentionKind::Self, forward ? &forward->trace : nullptr}};
    if (c.isEncoderDecoder()) {
        blocks.push_back(
            {"decoder", AttentionKind::DecoderSelf, forward ? &forward->decoderTrace : nullptr});
        blocks.push_back({"cross", AttentionKind::Cross, forward ? &forward->crossTrace : nullptr});
    }
    std::vector<ModelMetrics> metrics;
    for (const Block& b : blocks) {
        // One stack is the model's only one: "analyze", not "analyze encoder".
        const std::string stage =
            c.isEncoderDecoder() ? std::string("analyze ") + b.name : std::string("analyze");
        metrics.push_back(analyzeModel(*model, config, b.trace, nullptr, terminalProgress(stage),
                                       readAnalysisOptions(args, b.kind)));
    }

    if (args.flag("json")) {
        nlohmann::ordered_json doc =
            input ? inputJson(*model, *input) : nlohmann::ordered_json{{"model", model->name()}};
        addConfigJson(doc, config);
        if (c.qkNorm != QkNorm::None)
            doc["bilinear_form"] =
                "W_Q diag(g_q * g_k) W_K^T: the QK-norm gains are folded in, their per-token "
                "RMS factors left out";
        if (c.latent.present()) doc["bilinear_form"] = latentFormDescription(c);
        if (c.bilinearHeads)
            doc["bilinear_form"] =
                "W_h: each head's own d_model x d_model matrix (full-bilinear); the Q/K, Q/V and "
                "K/V subspace similarities are not defined for it";
        if (!c.isEncoderDecoder()) {
            doc.update(metricsJson(metrics.front()));  // decoder- and encoder-only: as before
        } else {
            for (size_t i = 0; i < blocks.size(); ++i)
                doc[blocks[i].name] = metricsJson(metrics[i]);
        }
        printJson(doc);
        return 0;
    }
    std::printf("model %s, config %s\n", model->name().c_str(), config.name().c_str());
    if (c.qkNorm != QkNorm::None)
        std::printf(
            "QK-norm: each head's form is W_Q diag(g_q * g_k) W_K^T (the norms' gains folded "
            "in, their per-token RMS factors left out)\n");
    if (c.latent.present()) std::printf("%s\n", latentFormDescription(c).c_str());
    for (size_t i = 0; i < blocks.size(); ++i) {
        if (c.isEncoderDecoder()) std::printf("\n%s attention\n", blocks[i].name);
        std::printf("median layer W_QK symmetry %.4f, directionality %.4f\n\n",
                    metrics[i].medianLayerWqkSymmetry, metrics[i].medianLayerWqkDirectionality);
        printMetrics(c, metrics[i], forward.has_value() && blocks[i].kind != AttentionKind::Cross,
                     forward.has_value() && c.attentionSinks, c.latent.present());
    }
    return 0;
}

}  // namespace

Command analyzeCommand() {
    std::vector<OptionSpec> options = forwardOptions();
    options.push_back(backendOption());
    options.push_back(gqaPairingOption());
    options.push_back(noCopyingScoreOption());
    options.push_back(jsonOption());
    return {"analyze",
            "per-head symmetry, directionality, rank and subspace similarity of W_Q, W_K, W_V, "
            "the OV circuit's rank and copying score (score symmetry with --text)",
            options, runAnalyze};
}

}  // namespace qkv::cli
