#pragma once
// The fields of a figure's provenance that the app and the CLI fill alike: the model (name,
// revision, weights fingerprint), the tokens and which block of an encoder-decoder they are.
#include "core/analysis/head_metrics.h"
#include "core/model/model.h"
#include "ui/export/figure_provenance.h"

namespace qkv::ui {

// The model's name, the revision of a cached Hub snapshot, and its weights fingerprint (left
// out when the weights cannot be read again).
FigureProvenance modelProvenance(const Model& model);

// "encoder", "decoder" or "cross" for an encoder-decoder model's attention; nullopt otherwise.
std::optional<std::string> blockName(const Model& model, AttentionKind kind);

}  // namespace qkv::ui
