#pragma once
// Which heads a forward keeps n x n matrices for. Every head when that fits a memory budget (so
// switching heads and the overview's score symmetry need no recomputation), else only the head
// on screen: a long sentence through a large model would otherwise hold gigabytes. With one head,
// q, k and v are kept for its layer only (a GPU would spend most of a long forward sending every
// layer's to the host).
#include <cstddef>

#include "core/model/architecture.h"
#include "core/model/attention_trace.h"

namespace qkv::ui {

constexpr std::size_t kCaptureBudgetBytes = 256u << 20;

// `traces` is how many forwards keep matrices (2 when the Compare view's learned reference runs).
CaptureSelection capturePolicy(const Architecture& config, int tokens, int traces, int layer,
                               int head, bool captureAll);

}  // namespace qkv::ui
