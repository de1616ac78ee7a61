#include <cstdio>
#include <deque>
#include <iostream>

#include "app/cli/cli_common.h"
#include "app/cli/command.h"
#include "app/cli/terminal_progress.h"
#include "core/analysis/head_metrics.h"
#include "core/analysis/hidden_keys.h"
#include "core/model/forward.h"
#include "core/report/json_report.h"
#include "core/report/trace_npz.h"
#include "core/tokenize/token_label.h"

namespace qkv::cli {
namespace {

void printMatrix(const char* title, const RowMatrixXf& m, const std::vector<std::string>& rows,
                 const std::vector<std::string>& columns) {
    std::printf("  %s\n  %12s", title, "");
    for (size_t j = 0; j < columns.size(); ++j)
        std::printf(" %s", rightAligned(columns[j], 8).c_str());
    std::printf("\n");
    for (Eigen::Index i = 0; i < m.rows(); ++i) {
        std::printf("  %s", rightAligned(rows[i], 12).c_str());
        for (Eigen::Index j = 0; j < m.cols(); ++j) std::printf(" %8.4f", m(i, j));
        std::printf("\n");
    }
}

// A short convolution's band: each channel's weights on its last kernel tokens.
void printTaps(int l, const RowMatrixXf& taps) {
    std::printf("\nlayer %d: a short convolution y = C · conv(B · x), no heads\n", l);
    std::vector<std::string> channels, offsets;
    for (Eigen::Index c = 0; c < taps.rows(); ++c)
        channels.push_back("channel " + std::to_string(c));
    for (Eigen::Index k = taps.cols() - 1; k >= 0; --k)
        offsets.push_back(k == 0 ? "t" : "t-" + std::to_string(k));
    printMatrix("taps (rows: channels, columns: the token each weighs)", taps, channels, offsets);
}

// A sparse attention layer's choice: each query's kept keys, and the indexer's scores.
void printSelection(int l, const LayerTrace& layer, const std::vector<std::string>& queries,
                    const std::vector<std::string>& keys) {
    std::printf("\nlayer %d: sparse attention, the keys its indexer kept\n", l);
    for (size_t i = 0; i < layer.selectedKeys.size(); ++i) {
        std::printf("  %s ", rightAligned(queries[i], 12).c_str());
        for (int j : layer.selectedKeys[i]) std::printf(" %d", j);
        std::printf("\n");
    }
    if (layer.indexerScores.size() > 0)
        printMatrix("indexer scores (rows: queries, columns: keys)", layer.indexerScores, queries,
                    keys);
}

// A masked head's dense counterfactual and what it puts on the hidden keys, per query.
void printHidden(const HiddenKeys& hidden, const std::vector<std::string>& queries,
                 const std::vector<std::string>& keys) {
    printMatrix("dense counterfactual: the same scores with the mask lifted (not the model's)",
                hidden.dense, queries, keys);
    std::printf("  %12s", "dropped mass");
    for (double m : hidden.dropped) std::printf(" %8.4f", m);
    std::printf("  (per query row: the counterfactual's mass on the keys the mask hides)\n");
}

// Every captured head of one trace; `kind` names the attention ("cross-attention "). Where the
// heads had sinks, what each row's sink took; a short convolution's taps. With `dense` (and the
// model's architecture), a masked layer's counterfactual and dropped mass.
void printTrace(const std::string& kind, const AttentionTrace& trace,
                const CaptureSelection& capture, const std::vector<std::string>& queries,
                const std::vector<std::string>& keys, const Architecture* dense = nullptr,
                bool maskSelf = false) {
    for (int l = 0; l < trace.layerCount(); ++l) {
        if (trace.layers()[l].taps.size() > 0) printTaps(l, trace.layers()[l].taps);
        if (!trace.layers()[l].selectedKeys.empty())
            printSelection(l, trace.layers()[l], queries, keys);
        for (int h = 0; h < trace.headCount(l); ++h) {
            if (!capture.includes(l, h)) continue;
            std::printf("\n%slayer %d head %d\n", kind.c_str(), l, h);
            // A linear-attention layer has no softmax: its exact implicit map, with no scores.
            printMatrix(trace.isImplicit(l) ? "implicit attention (rows: queries, columns: keys)"
                                            : "attention (rows: queries, columns: keys)",
                        trace.probabilities(l, h), queries, keys);
            if (trace.hasSinks()) {
                std::printf("  %12s", "sink share");
                for (double s : sinkShares(trace.probabilities(l, h))) std::printf(" %8.4f", s);
                std::printf("  (per query row: what the sink took; rows sum to 1 - it)\n");
            }
            if (capture.scores && trace.hasScores(l, h))
                printMatrix("scores (scaled, before masking)", trace.scores(l, h), queries, keys);
            if (dense && hidesKeys(*dense, l) && trace.hasScores(l, h))
                printHidden(whatTheMaskHides(trace.scores(l, h), trace.probabilities(l, h),
                                             dense->keyMask(l), maskSelf, trace.hasSinks(),
                                             selectedKeys(trace, l)),
                            queries, keys);
        }
        for (const LayerTrace& mixer : trace.layers()[l].beside)  // Falcon-H1's Mamba-2 heads
            for (size_t h = 0; h < mixer.probabilities.size(); ++h) {
                if (mixer.probabilities[h].size() == 0) continue;
                std::printf("\n%slayer %d Mamba-2 head %zu (beside the attention), skip D %.4f\n",
                            kind.c_str(), l, h, h < mixer.skip.size() ? mixer.skip[h] : 0.0f);
                printMatrix("implicit attention (rows: queries, columns: keys)",
                            mixer.probabilities[h], queries, keys);
            }
    }
}

// Per mixture-of-experts layer, a line per token: "  piece  expert 3 (0.612), expert 1 (0.388)".
void printRouting(const AttentionTrace& trace, const std::vector<std::string>& labels) {
    for (int l = 0; l < trace.layerCount(); ++l) {
        const std::vector<TokenRouting>& routing = trace.layers()[l].routing;
        if (routing.empty()) continue;
        std::printf("\nlayer %d routing (experts and weights per token)\n", l);
        for (size_t t = 0; t < routing.size(); ++t) {
            std::printf("  %s ", rightAligned(t < labels.size() ? labels[t] : "", 12).c_str());
            for (size_t i = 0; i < routing[t].size(); ++i)
                std::printf("%s expert %d (%.3f)", i ? "," : "", routing[t][i].expert,
                            routing[t][i].weight);
            std::printf("\n");
        }
    }
}

// Per layer (null without experts) per token, the experts chosen and their weights.
nlohmann::ordered_json routingJson(const AttentionTrace& trace) {
    nlohmann::ordered_json layers = nlohmann::ordered_json::array();
    for (const LayerTrace& layer : trace.layers()) {
        if (layer.routing.empty()) {
            layers.push_back(nullptr);
            continue;
        }
        nlohmann::ordered_json tokens = nlohmann::ordered_json::array();
        for (const TokenRouting& token : layer.routing) {
            nlohmann::ordered_json chosen = nlohmann::ordered_json::array();
            for (const ExpertChoice& choice : token)
                chosen.push_back({{"expert", choice.expert}, {"weight", choice.weight}});
            tokens.push_back(chosen);
        }
        layers.push_back(tokens);
    }
    return layers;
}

// The captured matrices and the ids as numpy arrays, the input's record as provenance.json (with
// the arrays' names); one line on stdout says what was written.
void writeNpz(const std::string& file, nlohmann::ordered_json record, const Input& input,
              bool encoderDecoder, const ForwardResult& result, const CaptureSelection& capture,
              bool vectors) {
    NpzWriter npz(file);
    std::deque<std::vector<float>> owned;  // what the archive reads until it is closed
    std::deque<std::vector<std::int64_t>> ownedIds;
    std::vector<std::string> names;
    auto addIds = [&](const std::string& name, const std::vector<int>& ids) {
        const auto& wide = ownedIds.emplace_back(ids.begin(), ids.end());
        npz.addInt64(name, wide.data(), {static_cast<std::int64_t>(wide.size())});
        names.push_back(name);
    };
    addIds("ids", input.ids);
    auto addTrace = [&](const std::string& prefix, const AttentionTrace& trace) {
        for (std::string& name : addTraceArrays(npz, prefix, trace, capture, vectors, owned))
            names.push_back(std::move(name));
    };
    if (encoderDecoder) {
        addIds("target_ids", input.targetIds);
        addTrace("encoder_", result.trace);
        addTrace("decoder_", result.decoderTrace);
        addTrace("cross_", result.crossTrace);
    } else {
        addTrace("", result.trace);
    }
    record["arrays"] = names;
    npz.addText("provenance.json",
                record.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace));
    npz.close();
    std::printf("wrote %s: %zu arrays\n", file.c_str(), names.size());
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
    request.capture.head = args.integer("head", 0, std::max(c.mostHeads(), c.decoderHeads) - 1);
    request.capture.scores = !args.flag("no-scores");
    const bool routing = args.flag("routing");
    const bool dense = args.flag("dense");
    if (dense) {
        if (args.flag("no-scores")) throw UsageError("--dense reads the scores: drop --no-scores");
        if (!someLayerHidesKeys(c) || c.isEncoderDecoder())
            throw Error("--dense: " + model->name() +
                        " has no layer whose mask hides keys (a sliding window, chunks or a "
                        "sparse attention's indexer)");
    }
    if (routing && c.expertLayers() == 0)
        throw Error("--routing: " + model->name() + " has no mixture-of-experts layers");
    request.logits = LogitsMode::None;
    request.progress = terminalProgress("forward");

    auto backend = openBackend(args);
    const ForwardResult result = ForwardPass(*model, *backend).run(request);

    nlohmann::ordered_json header = inputJson(*model, input);
    addConfigJson(header, request.config);
    if (c.attentionSinks) header["attention_sinks"] = true;
    const bool vectors = args.flag("vectors");
    if (const auto npz = args.value("npz")) {
        if (args.flag("json")) throw UsageError("--npz and --json: choose one output");
        writeNpz(*npz, header, input, c.isEncoderDecoder(), result, request.capture, vectors);
        return 0;
    }
    if (args.flag("json")) {  // streamed: the matrices are never a document in memory
        JsonStream json(std::cout);
        json.beginObject();
        json.members(header);
        if (c.isEncoderDecoder()) {
            json.key("encoder_layers");
            writeTraceJson(json, result.trace, request.capture, vectors);
            json.key("decoder_layers");
            writeTraceJson(json, result.decoderTrace, request.capture, vectors);
            json.key("cross_layers");
            writeTraceJson(json, result.crossTrace, request.capture, vectors);
        } else {
            json.key("layers");
            const DenseCounterfactual counterfactual{request.config.maskSelf};
            writeTraceJson(json, result.trace, request.capture, vectors, &c,
                           dense ? &counterfactual : nullptr);
        }
        if (routing) json.members({{"routing", routingJson(result.trace)}});
        json.endObject();
        std::cout << "\n";
        return 0;
    }
    std::printf("model %s, config %s, %zu tokens, backend %s\n", model->name().c_str(),
                request.config.name().c_str(), input.ids.size(), backend->name().c_str());
    if (!c.isEncoderDecoder()) {
        printTrace("", result.trace, request.capture, input.labels, input.labels,
                   dense ? &c : nullptr, request.config.maskSelf);
        if (routing) printRouting(result.trace, input.labels);
        return 0;
    }
    printTrace("encoder ", result.trace, request.capture, input.labels, input.labels);
    printTrace("decoder ", result.decoderTrace, request.capture, input.targetLabels,
               input.targetLabels);
    printTrace("cross-attention ", result.crossTrace, request.capture, input.targetLabels,
               input.labels);
    return 0;
}

}  // namespace

Command attentionCommand() {
    std::vector<OptionSpec> options = forwardOptions();
    options.push_back({"layer", "L", "only this layer (0-based)"});
    options.push_back({"head", "H", "only this head (0-based)"});
    options.push_back({"no-scores", "", "leave out the raw score matrices"});
    options.push_back({"vectors", "", "with --json or --npz: each head's q, k and v rows too"});
    options.push_back({"npz", "FILE",
                       "write the matrices to FILE, numpy's .npz (numpy.load opens it), with the "
                       "ids and the input's record (provenance.json) instead of printing them"});
    options.push_back({"routing", "",
                       "the experts each mixture-of-experts layer routed each token to, with "
                       "their weights"});
    options.push_back({"dense", "",
                       "for layers whose mask hides keys (sliding windows, Llama 4's chunks): "
                       "each head's dense counterfactual (the same scores with the mask lifted) "
                       "and the mass it puts on the hidden keys per query"});
    options.push_back(backendOption());
    options.push_back(jsonOption());
    return {"attention", "every head's attention (and raw scores) for a sentence", options,
            runAttention};
}

}  // namespace qkv::cli
