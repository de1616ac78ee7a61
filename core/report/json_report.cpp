#include "core/report/json_report.h"

#include <cstdio>
#include <cstdlib>

#include "core/analysis/hidden_keys.h"
#include "core/format/element_type.h"

namespace qkv {

double jsonNumber(double value) {
    char text[32];
    std::snprintf(text, sizeof text, "%.7g", value);
    return std::strtod(text, nullptr);
}

namespace {

nlohmann::ordered_json numbersJson(const std::vector<double>& values) {
    nlohmann::ordered_json out = nlohmann::ordered_json::array();
    for (double v : values) out.push_back(jsonNumber(v));
    return out;
}

}  // namespace

nlohmann::ordered_json headMetricsJson(const HeadMetrics& head) {
    nlohmann::ordered_json out = {
        {"wqk_symmetry", jsonNumber(head.wqkSymmetry)},
        {"wqk_directionality", jsonNumber(head.wqkDirectionality)},
        {"wqk_rank", head.wqkRank},
        {"wqk_singular_values", numbersJson(head.wqkSingularValues)},
        {"eigen_positivity", jsonNumber(head.eigenPositivity)},
        {"qk_similarity", jsonNumber(head.qkSimilarity)},
        {"qv_similarity", jsonNumber(head.qvSimilarity)},
        {"kv_similarity", jsonNumber(head.kvSimilarity)},
    };
    if (head.scoreSymmetry) out["score_symmetry"] = jsonNumber(*head.scoreSymmetry);
    if (head.sinkShare) out["sink_share"] = jsonNumber(*head.sinkShare);
    if (head.droppedMass) out["dropped_mass"] = jsonNumber(*head.droppedMass);
    if (head.indexerAgreement) out["indexer_agreement"] = jsonNumber(*head.indexerAgreement);
    out["ov_rank"] = head.ovRank;
    out["ov_singular_values"] = numbersJson(head.ovSingularValues);
    if (head.ovCopyingScore) out["ov_copying_score"] = jsonNumber(*head.ovCopyingScore);
    if (head.rotaryPart)
        out["rotary_part"] = {{"wqk_rank", head.rotaryPart->rank},
                              {"wqk_symmetry", jsonNumber(head.rotaryPart->symmetry)}};
    return out;
}

nlohmann::ordered_json metricsJson(const ModelMetrics& metrics) {
    nlohmann::ordered_json layers = nlohmann::ordered_json::array();
    for (const LayerMetrics& layer : metrics.layers) {
        nlohmann::ordered_json heads = nlohmann::ordered_json::array();
        for (const HeadMetrics& head : layer.heads) heads.push_back(headMetricsJson(head));
        layers.push_back({{"wqk_symmetry", jsonNumber(layer.wqkSymmetry)},
                          {"wqk_directionality", jsonNumber(layer.wqkDirectionality)},
                          {"heads", heads}});
    }
    return {{"median_layer_wqk_symmetry", jsonNumber(metrics.medianLayerWqkSymmetry)},
            {"median_layer_wqk_directionality", jsonNumber(metrics.medianLayerWqkDirectionality)},
            {"layers", layers}};
}

namespace {

// A matrix as an array of rows, one row in memory at a time.
template <typename Matrix>
void writeMatrix(JsonStream& json, const Matrix& m) {
    json.beginArray();
    for (Eigen::Index r = 0; r < m.rows(); ++r) {
        nlohmann::ordered_json row = nlohmann::ordered_json::array();
        for (Eigen::Index c = 0; c < m.cols(); ++c) row.push_back(jsonNumber(m(r, c)));
        json.value(row);
    }
    json.endArray();
}

}  // namespace

void writeTraceJson(JsonStream& json, const AttentionTrace& trace,
                    const CaptureSelection& selection, bool vectors,
                    const Architecture* architecture, const DenseCounterfactual* dense) {
    const bool selected = selection.layer || selection.head;
    json.beginArray();
    for (int l = 0; l < trace.layerCount(); ++l) {
        if (selection.layer && *selection.layer != l) continue;
        json.beginObject();
        if (architecture) json.members({{"kind", architecture->kindName(l)}});
        // Sparse attention: the keys each query kept, and the indexer's scores that chose them.
        if (const LayerTrace& layer = trace.layers()[l]; !layer.selectedKeys.empty()) {
            json.members({{"selected_keys", layer.selectedKeys}});
            if (layer.indexerScores.size() > 0) {
                json.key("indexer_scores");
                writeMatrix(json, layer.indexerScores);
            }
        }
        json.key("heads");
        json.beginArray();
        for (int h = 0; h < trace.headCount(l); ++h) {
            if (!selection.includes(l, h)) continue;
            json.beginObject();
            if (selected) json.members({{"head", h}});
            if (trace.hasProbabilities(l, h)) {
                json.key("attention");
                writeMatrix(json, trace.probabilities(l, h));
                if (trace.isImplicit(l)) json.members({{"implicit", true}});
                if (trace.hasSinks())
                    json.members(
                        {{"sink_share", numbersJson(sinkShares(trace.probabilities(l, h)))}});
            }
            if (const std::vector<float> gate = trace.outputGate(l, h); !gate.empty())
                json.members({{"output_gate", numbersJson({gate.begin(), gate.end()})}});
            // Mamba-2: out_t = Σ_s M_ts x_s + D x_t, the skip D beside the map M.
            if (const std::vector<float>& skip = trace.layers()[l].skip; h < int(skip.size()))
                json.members({{"skip", skip[h]}});
            if (trace.hasScores(l, h)) {
                json.key("scores");
                writeMatrix(json, trace.scores(l, h));
            }
            if (dense && architecture && hidesKeys(*architecture, l) && trace.hasScores(l, h) &&
                trace.hasProbabilities(l, h)) {
                const HiddenKeys hidden = whatTheMaskHides(
                    trace.scores(l, h), trace.probabilities(l, h), architecture->keyMask(l),
                    dense->maskSelf, trace.hasSinks(), selectedKeys(trace, l));
                json.key("dense_attention");
                writeMatrix(json, hidden.dense);
                json.members({{"dropped_mass", numbersJson(hidden.dropped)}});
            }
            if (vectors) {
                json.key("q");
                writeMatrix(json, trace.query(l, h));
                json.key("k");
                writeMatrix(json, trace.key(l, h));
                json.key("v");
                writeMatrix(json, trace.value(l, h));
            }
            json.endObject();
        }
        json.endArray();
        // Falcon-H1: the Mamba-2 heads beside the attention, each its implicit map and skip.
        if (const std::vector<LayerTrace>& beside = trace.layers()[l].beside; !beside.empty()) {
            json.key("ssm_heads");
            json.beginArray();
            const LayerTrace& mixer = beside.front();
            for (size_t h = 0; h < mixer.probabilities.size(); ++h) {
                if (!selection.includes(l, static_cast<int>(h)) ||
                    mixer.probabilities[h].size() == 0)
                    continue;
                json.beginObject();
                if (selected) json.members({{"head", static_cast<int>(h)}});
                json.key("attention");
                writeMatrix(json, mixer.probabilities[h]);
                json.members({{"implicit", true}});
                if (h < mixer.skip.size()) json.members({{"skip", mixer.skip[h]}});
                json.endObject();
            }
            json.endArray();
        }
        // A short convolution: its band, each channel's taps (the last weighs the current token).
        if (const RowMatrixXf& taps = trace.layers()[l].taps; taps.size() > 0) {
            json.key("taps");
            writeMatrix(json, taps);
        }
        if (selected) json.members({{"layer", l}});
        json.endObject();
    }
    json.endArray();
}

nlohmann::ordered_json modelInfoJson(const Model& model) {
    const Architecture& c = model.architecture();
    nlohmann::ordered_json doc = {
        {"model", model.name()},
        {"architecture", c.family},
        {"model_type", c.modelType},
        {"layers", c.layers},
        {"heads", c.heads},
        {"kv_heads", c.kvHeads},
        {"d_model", c.dModel},
        {"d_k", c.headDim},
        {"d_ff", c.dFF},
        {"vocab_size", c.vocabSize},
        {"context_length", c.contextLength},
        {"causal", c.causal},
        {"parameters", model.parameterCount()},
        {"weight_bytes", model.weightBytes()},
        {"tokenizer", model.tokenizer() != nullptr},
    };
    if (!model.tokenizer()) doc["tokenizer_error"] = model.tokenizerError();
    // The stored type of the weights, as the token embedding has it (GGUF files mix types: their
    // "quantisation" below names the mix).
    if (!model.weights().tokenEmbedding.empty())
        doc["dtype"] = elementTypeName(model.weights().tokenEmbedding.type);
    if (c.isEncoderDecoder()) doc["encoder_decoder"] = true;
    // A model from Ollama's store is named NAME:TAG; its file, the blob, by its digest.
    if (const std::string file = model.folder().filename().string(); file.rfind("sha256-", 0) == 0)
        doc["digest"] = "sha256:" + file.substr(7);
    if (c.embeddingWidth > 0) doc["embedding_width"] = c.embeddingWidth;
    if (c.positions == Positions::Rotary) doc["rotary"] = c.rotary.describe();
    if (c.qkNorm != QkNorm::None)
        doc["qk_norm"] = c.qkNorm == QkNorm::PerHead ? "per head" : "whole";
    // One entry per layer where the layers differ (local / global, NoPE).
    if (!c.describeLayer(0).empty()) {
        nlohmann::ordered_json kinds = nlohmann::ordered_json::array();
        for (int l = 0; l < c.layers; ++l) kinds.push_back(c.describeLayer(l));
        doc["layer_kinds"] = kinds;
    }
    if (c.sharesKeyValues()) {  // per layer: whose keys and values it attends over (null: its own)
        nlohmann::ordered_json sources = nlohmann::ordered_json::array();
        for (int l = 0; l < c.layers; ++l) {
            const int source = c.kindOf(l).keyValueSource;
            sources.push_back(source >= 0 ? nlohmann::ordered_json(source) : nullptr);
        }
        doc["kv_source_layer"] = sources;
    }
    if (c.streams.present())
        doc["residual_streams"] = {{"count", c.streams.count},
                                   {"active", c.streams.active},
                                   {"laurel_rank", c.laurelRank},
                                   {"per_layer_input_width", c.perLayerInputs.width}};
    if (c.expertLayers() > 0) {
        nlohmann::ordered_json layers = nlohmann::ordered_json::array();
        for (int l = 0; l < c.layers; ++l)
            if (c.kindOf(l).experts) layers.push_back(l);
        doc["experts"] = {
            {"count", c.moe.experts},
            {"per_token", c.moe.perToken},
            {"width", c.moe.width},
            {"router", c.moe.router == Router::TopKSoftmax   ? "softmax of the top k"
                       : c.moe.router == Router::SigmoidTopK ? "top k of the sigmoids"
                       : c.moe.router == Router::TopKSigmoid ? "sigmoids of the top k"
                                                             : "top k of the softmax"},
            {"renormalised", c.moe.normalizeTopK},
            {"layers", layers}};
        if (c.moe.groups > 1) doc["experts"]["groups"] = {c.moe.groupsKept, c.moe.groups};
        if (c.moe.scale != 1.0f) doc["experts"]["scale"] = c.moe.scale;
        if (c.moe.sharedWidth > 0) doc["experts"]["shared_width"] = c.moe.sharedWidth;
        if (c.moe.weighsInput) doc["experts"]["weighs_input"] = true;
    }
    if (c.latent.present())
        doc["latent_attention"] = {{"query_rank", c.latent.queryRank},
                                   {"latent_rank", c.latent.keyValueRank},
                                   {"rotary_dims", c.latent.ropeDim},
                                   {"other_dims", c.latent.nopeDim},
                                   {"value_dims", c.valueWidth()}};
    if (c.bilinearHeads)
        doc["full_bilinear"] = {{"form_width", c.dModel}, {"value_dims", c.valueWidth()}};
    if (c.valueIsKeyLayers() > 0) {
        nlohmann::ordered_json layers = nlohmann::ordered_json::array();
        for (int l = 0; l < c.layers; ++l)
            if (c.kindOf(l).valueIsKey) layers.push_back(l);
        doc["value_is_key_layers"] = layers;
    }
    if (c.attentionSinks) doc["attention_sinks"] = true;
    if (!c.notShown.empty()) doc["not_shown"] = c.notShown;
    if (!c.quantisation.empty()) doc["quantisation"] = c.quantisation;
    return doc;
}

nlohmann::ordered_json surveyJson(const ModelSurvey& s) {
    nlohmann::ordered_json doc = {
        {"model", s.name},
        {"model_type", s.modelType},
        {"attention", s.causal ? "causal" : "bidirectional"},
        {"layers", s.layerSymmetry.size()},
        {"heads", s.headSymmetry.size()},
        {"median_layer_wqk_symmetry", jsonNumber(s.medianLayerSymmetry())},
        {"median_layer_wqk_directionality", jsonNumber(s.medianLayerDirectionality())},
        {"median_head_wqk_symmetry", jsonNumber(s.medianHeadSymmetry())},
        {"median_head_wqk_directionality", jsonNumber(s.medianHeadDirectionality())},
    };
    if (auto copying = s.medianCopying()) doc["median_ov_copying_score"] = jsonNumber(*copying);
    doc["value_is_key_layers"] = s.valueIsKeyLayers;
    doc["layer_wqk_symmetry"] = numbersJson(s.layerSymmetry);
    doc["layer_wqk_directionality"] = numbersJson(s.layerDirectionality);
    return doc;
}

}  // namespace qkv
