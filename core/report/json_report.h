#pragma once
// The JSON documents QKV Lab writes (CLI --json output, batch-export metrics), built in one place
// so every front end writes the same fields. Floats are written with 7 significant digits.
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/analysis/head_metrics.h"
#include "core/analysis/model_survey.h"
#include "core/model/attention_trace.h"
#include "core/report/json_stream.h"
#include "core/tokenize/tokenizer.h"

namespace qkv {

// A float rounded to 7 significant digits, so JSON shows 0.1 rather than 0.10000000149011612.
double jsonNumber(double value);

// {"median_layer_wqk_symmetry": x, "layers": [{"wqk_symmetry": x, "heads": [{...}]}]}
nlohmann::ordered_json metricsJson(const ModelMetrics& metrics);
// What `info --json` prints: the model's name, family, widths, layers, heads, rotary, layer kinds,
// experts, latents, quantisation.
nlohmann::ordered_json modelInfoJson(const Model& model);
// One model's row of `survey --json`: its medians and per-layer lists.
nlohmann::ordered_json surveyJson(const ModelSurvey& survey);
nlohmann::ordered_json headMetricsJson(const HeadMetrics& head);

// The attention document's "layers" array, written as it is produced: per layer {"heads":
// [{"attention", "scores"}]} for the captured heads; with a selection, each object also names its
// "layer" / "head". With `vectors` each head also gives "q", "k", "v": the rows the head used in
// each slot (after rotary positions), queries' tokens x d_k and keys' tokens x d_k. Where the heads
// had attention sinks (gpt-oss), each head also gives "sink_share": per query row what the sink
// took, 1 - the row's sum. A linear layer's heads give their implicit attention as "attention"
// with "implicit": true; gated attention's heads give "output_gate", each query's mean σ(gate).
// With the model's `architecture`, each layer names its "kind" (Architecture::kindName).
// With `dense` (which needs the architecture and the captured scores), each head of a layer
// whose mask hides keys (a sliding window, chunks) also gives "dense_attention", the dense
// counterfactual, and "dropped_mass" per query (core/analysis/hidden_keys.h).
struct DenseCounterfactual {
    bool maskSelf = false;  // the configuration masks each token from itself
};
void writeTraceJson(JsonStream& json, const AttentionTrace& trace,
                    const CaptureSelection& selection, bool vectors = false,
                    const Architecture* architecture = nullptr,
                    const DenseCounterfactual* dense = nullptr);

}  // namespace qkv
