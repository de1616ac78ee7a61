#pragma once
// What the Training tab asks its worker for, and gets back: the sentence's attention at one
// (layer, head) under every trained variant, each run as trained (its own weights, its own
// tokenizer and context). Results are immutable and shared, as the document's are.
#include <QMetaType>
#include <QString>
#include <atomic>
#include <memory>
#include <optional>
#include <vector>

#include "core/model/attention_trace.h"
#include "ui/compute/compute_types.h"
#include "ui/training/variant_family.h"

namespace qkv::ui {

struct VariantRequest {
    quint64 sequence = 0;  // increasing; older results are dropped
    QString text;
    int layer = 0;
    int head = 0;
    std::vector<VariantFolder> variants;
    std::shared_ptr<std::atomic<bool>> cancel;
};

struct VariantAttention {
    VariantFolder variant;
    std::vector<ShownToken> tokens;
    std::optional<int> truncatedFrom;  // token count before cutting to this variant's context
    bool causal = true;
    std::shared_ptr<const AttentionTrace> trace;  // only (layer, head) captured; null on error
    QString error;                                // why this variant shows nothing

    QStringList labels() const;
};

struct VariantSnapshot {
    quint64 sequence = 0;
    QString text;
    int layer = 0;
    int head = 0;
    std::vector<VariantAttention> variants;  // in the request's order
    double milliseconds = 0;
};

using VariantSnapshotPtr = std::shared_ptr<const VariantSnapshot>;

}  // namespace qkv::ui

Q_DECLARE_METATYPE(qkv::ui::VariantSnapshotPtr)
