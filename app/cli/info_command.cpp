#include <algorithm>
#include <cstdio>
#include <iostream>

#include "app/cli/cli_common.h"
#include "app/cli/command.h"
#include "app/cli/figure_info.h"
#include "core/report/json_report.h"

namespace qkv::cli {
namespace {

// "; 32 wide, 1 key/value head in 2 of 4 layers" where some layers have heads of their own
// (Gemma 4's global layers; see layer kinds); "" otherwise.
std::string ownHeadsNote(const Architecture& c) {
    int count = 0, first = -1;
    for (int l = 0; l < c.layers; ++l)
        if (!c.isImplicit(l) && (c.kindOf(l).headDim > 0 || c.kindOf(l).kvHeads > 0)) {
            ++count;
            if (first < 0) first = l;
        }
    if (count == 0) return {};
    const int kv = c.kvHeadsOf(first);
    return "; " + std::to_string(c.headDimOf(first)) + " wide, " + std::to_string(kv) +
           (kv == 1 ? " key/value head" : " key/value heads") + " in " + std::to_string(count) +
           " of " + std::to_string(c.layers) + " layers";
}

int runInfo(const Arguments& args) {
    if (auto figure = args.value("figure")) {
        if (args.has("model")) throw UsageError("give --model or --figure, not both");
        return printFigureInfo(*figure, args.flag("json"));
    }
    auto model = openModel(args);
    const Architecture& c = model->architecture();
    const nlohmann::ordered_json doc = modelInfoJson(*model);
    if (args.flag("json")) {
        printJson(doc);
        return 0;
    }
    auto row = [](const char* label, const std::string& value) {
        std::printf("%-14s %s\n", label, value.c_str());
    };
    row("model", model->name());
    row("architecture", c.family + (c.causal ? " (causal)" : " (bidirectional)"));
    row("layers", std::to_string(c.layers));
    row("heads",
        std::to_string(c.heads) +
            (c.kvHeads != c.heads ? " query, " + std::to_string(c.kvHeads) + " key/value" : ""));
    row("d_model", std::to_string(c.dModel));
    row("d_k", std::to_string(c.headDim) + ownHeadsNote(c));
    // The first layer of each kind without a softmax: its heads (layer kinds counts them).
    for (Mixer mixer : {Mixer::GatedDeltaNet, Mixer::Mamba2, Mixer::ShortConv})
        for (int l = 0; l < c.layers; ++l)
            if (c.mixerOf(l) == mixer) {
                row(mixer == Mixer::Mamba2      ? "mamba2"
                    : mixer == Mixer::ShortConv ? "short conv"
                                                : "linear attn",
                    c.describeLayer(l));
                break;
            }
    if (c.besideMamba) row("layers are", c.describeLayer(0));
    if (c.bilinearHeads)
        row("W_h", "one " + std::to_string(c.dModel) + " x " + std::to_string(c.dModel) +
                       " matrix per head instead of W_Q W_K^T: S_ij = (x_i W_h + c_h) . x_j / "
                       "sqrt(" +
                       std::to_string(c.valueWidth()) + "); values " +
                       std::to_string(c.valueWidth()) + " wide");
    if (c.valueIsKeyLayers() > 0)
        row("W_V = W_K",
            "in " + std::to_string(c.valueIsKeyLayers()) + " of " + std::to_string(c.layers) +
                " layers, tied by the model: their values are the key projection itself "
                "(before the key's norm and rotation)");
    // A model whose every layer has experts uses no dense MLP width (Qwen3-MoE still states one).
    if (c.expertLayers() < c.layers) row("d_ff", std::to_string(c.dFF));
    if (c.expertLayers() > 0) row("experts", c.describeExperts());
    if (c.latent.present()) row("latent attn", c.describeLatent());
    if (c.streams.present()) row("streams", c.describeStreams());
    if (c.sharesKeyValues()) row("shared K, V", c.describeSharedKeyValues());
    if (c.embeddingWidth > 0)
        row("embeddings", std::to_string(c.embeddingWidth) +
                              " wide, projected to d_model after the lookup and back before "
                              "the output");
    row("vocab", std::to_string(c.vocabSize));
    row("context", std::to_string(c.contextLength));
    bool rotates = false;
    for (int l = 0; l < c.layers; ++l) rotates |= c.rotaryOf(l) != nullptr;
    if (c.positions == Positions::Rotary)
        row("positions", rotates ? c.rotary.describe() : "none (no layer is told positions)");
    if (c.attentionSinks)
        row("sinks",
            "a learned logit per head takes a share of every attention row, so rows sum "
            "to less than one");
    if (c.qkNorm != QkNorm::None)
        row("qk-norm", c.qkNorm == QkNorm::PerHead ? "RMSNorm of each head's q and k"
                                                   : "RMSNorm of the whole q and k projections");
    // A hybrid's layers by kind in order of first appearance: "2 mamba2, 1 moe, 1 attention".
    std::vector<std::pair<std::string, int>> kinds;
    for (int l = 0; l < c.layers; ++l) {
        auto it = std::find_if(kinds.begin(), kinds.end(),
                               [&](const auto& k) { return k.first == c.kindName(l); });
        if (it == kinds.end())
            kinds.emplace_back(c.kindName(l), 1);
        else
            ++it->second;
    }
    if (c.isHybrid()) {
        std::string text;
        for (const auto& [name, count] : kinds)
            text += (text.empty() ? "" : ", ") + std::to_string(count) + " " + name;
        row("layer kinds", text);
    } else if (c.keyIndexer.present()) {
        int shared = 0;
        for (int l = 0; l < c.layers; ++l) shared += c.kindOf(l).reusesKeys;
        row("layer kinds",
            std::to_string(c.layers) + " sparse" +
                (shared ? " (" + std::to_string(shared) + " keeping the previous layer's keys)"
                        : std::string()));
        row("indexer", std::to_string(c.keyIndexer.heads) + " heads of " +
                           std::to_string(c.keyIndexer.headDim) + " keep each query's top " +
                           std::to_string(c.keyIndexer.topK) + " keys");
    } else if (!c.describeLayer(0).empty()) {
        int local = 0, chunked = 0, nope = 0;
        for (int l = 0; l < c.layers; ++l) {
            local += c.windowOf(l) > 0;
            chunked += c.chunkOf(l) > 0;
            nope += c.positions == Positions::Rotary && !c.rotaryOf(l);
        }
        const std::string limited =
            chunked ? std::to_string(chunked) + " chunked, " : std::to_string(local) + " local, ";
        row("layer kinds", limited + std::to_string(c.layers - local - chunked) + " global" +
                               (nope ? ", " + std::to_string(nope) + " NoPE" : ""));
    }
    if (!c.notShown.empty()) row("not shown", c.notShown);
    row("parameters", std::to_string(model->parameterCount()));
    char size[32];
    std::snprintf(size, sizeof size, "%.1f MB", model->weightBytes() / 1e6);
    const bool gguf = c.quantisation.rfind("GGUF", 0) == 0;
    row("weights",
        size +
            (c.quantisation.empty() ? std::string()
             : gguf                 ? ", " + c.quantisation
                                    : ", quantised as " + c.quantisation) +
            (c.quantisation.empty() ? "" : " (decoded block by block where a product reads it)"));
    row("tokenizer", model->tokenizer() ? "yes" : "none: " + model->tokenizerError());
    return 0;
}

}  // namespace

Command infoCommand() {
    return {"info",
            "architecture, layers, heads, d_model, d_k and parameter count of a model; or what "
            "an exported figure shows (--figure)",
            [] {
                auto options = modelOptions();
                options.push_back({"figure", "FILE",
                                   "instead of a model: the provenance a PNG, SVG or PDF exported "
                                   "by QKV Lab carries (model, weights, text, ids, head, "
                                   "configuration, view, version, date)"});
                options.push_back(jsonOption());
                return options;
            }(),
            runInfo};
}

}  // namespace qkv::cli
