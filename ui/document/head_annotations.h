#pragma once
// Names a user gives heads ("previous token", "induction"), keyed by the attention they belong
// to (an encoder-decoder model's encoder, decoder and cross-attention heads are distinct).
#include <QString>
#include <compare>
#include <map>

#include "core/analysis/head_metrics.h"

namespace qkv::ui {

struct HeadKey {
    AttentionKind kind = AttentionKind::Self;
    int layer = 0;
    int head = 0;
    auto operator<=>(const HeadKey&) const = default;
};

using HeadAnnotations = std::map<HeadKey, QString>;

}  // namespace qkv::ui
