#pragma once
// A forward's captured heads as dense float32 blocks [layer, head, query, key] (and the q, k, v
// rows [layer, head, token, width] where every layer has the same widths; values may be narrower
// than queries and keys: latent attention, full-bilinear heads), in buffers that the Python
// result object owns and lends to numpy without a copy.
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "core/model/attention_trace.h"

namespace qkv::python {

struct DenseBlock {
    std::vector<float> values;
    std::vector<std::size_t> shape;  // empty: not captured
};

struct TraceArrays {
    std::vector<int> layers, heads;  // which of the model's, in the order of the blocks' axes
    DenseBlock attention, scores, q, k, v;
    std::vector<std::vector<double>> sinkShares;  // per layer x head, flattened rows; sinks only
};

// The chosen layers (or heads) of `count`, all of them when none is chosen; throws qkv::Error
// naming `what` for an index the model does not have.
std::vector<int> allOrChecked(std::vector<int> chosen, int count, const char* what);

// Copies the selected heads out of `trace`, then empties it (the copies are what a result keeps).
// `layers`/`heads` empty: every one. Throws qkv::Error for an index the
// model does not have.
TraceArrays denseArrays(AttentionTrace& trace, std::vector<int> layers, std::vector<int> heads,
                        bool vectors);

}  // namespace qkv::python
