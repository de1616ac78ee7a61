#pragma once
// Tooltip text for a token pair of one head: which token reads which, and A_ij, S_ij, S_ji.
#include <QString>

#include "ui/compute/compute_types.h"

namespace qkv::ui {

// "bomb (6) → movie (1)" as rich text.
QString tokenPairHeading(const std::vector<ShownToken>& tokens, int query, int key);
// The same when queries and keys are different tokens (cross-attention: target → source).
QString tokenPairHeading(const std::vector<ShownToken>& queries,
                         const std::vector<ShownToken>& keys, int query, int key);
// A_ij, S_ij, S_ji and S_ij − S_ji of `trace` (whichever of them were captured), and the row's
// sink share where the heads had attention sinks.
QString headCellValues(const AttentionTrace& trace, int layer, int head, int query, int key,
                       const KeyMask& mask);
QString formatNumber(double value);

}  // namespace qkv::ui
