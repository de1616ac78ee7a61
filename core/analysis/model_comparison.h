#pragma once
// Two checkpoints of one model — a GGUF quantisation against its F16 file, or against the
// safetensors folder it came from — compared head by head on the same token ids: what
// quantisation does to attention. Per head, the largest change of an attention row (total
// variation, ½ Σ_j |A_ij − B_ij|, in [0, 1]) and the change of the head's W_QK symmetry.
#include <string>
#include <vector>

#include "core/analysis/head_metrics.h"
#include "core/backend/backend.h"

namespace qkv {

struct HeadChange {
    double attentionChange = 0;  // max over query rows of the total variation between the rows
    double symmetryA = 0, symmetryB = 0;  // s(W_Q^h W_K^hᵀ) of each checkpoint
};

struct ModelComparison {
    std::vector<std::vector<HeadChange>> layers;  // [layer][head]
    double largestAttentionChange() const;
};

// Throws qkv::Error saying what differs when the two are not checkpoints of one model: the
// architecture, layers, heads, head widths, d_model or the vocabulary's size.
void requireComparable(const Model& a, const Model& b);

// Adds to `ours` each head's change against the other checkpoint: its attention rows in the two
// traces of the same ids (heads captured in both) and its W_QK symmetry in the two metrics.
void addComparisonMetrics(ModelMetrics& ours, const AttentionTrace& ourTrace,
                          const ModelMetrics& theirs, const AttentionTrace& theirTrace);

// Both forwards (on `backend`) and both weight analyses of the self-attention, learned weights.
ModelComparison compareModels(const Model& a, const Model& b, const std::vector<int>& ids,
                              Backend& backendA, Backend& backendB, const Progress& progress = {});

}  // namespace qkv
