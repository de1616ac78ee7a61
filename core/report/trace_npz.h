#pragma once
// A forward's captured heads as numpy arrays in an .npz archive (qkvlab-cli attention --npz):
// per captured head "layerL_headH_attention" and "_scores" [queries, keys] as the trace holds them
// (no copy), "_sink_share" [queries] with attention sinks, and with `vectors` "_q", "_k", "_v"
// [tokens, d_k] (copied: the trace keeps every head's columns side by side).
#include <deque>
#include <string>
#include <vector>

#include "core/model/attention_trace.h"
#include "core/report/npz_writer.h"

namespace qkv {

// Adds the arrays under `prefix` ("", or "encoder_" and the like); returns their names. What is
// copied lives in `owned` until the archive is closed.
std::vector<std::string> addTraceArrays(NpzWriter& npz, const std::string& prefix,
                                        const AttentionTrace& trace,
                                        const CaptureSelection& selection, bool vectors,
                                        std::deque<std::vector<float>>& owned);

}  // namespace qkv
