#pragma once
// What the compute worker is asked for and what it hands back. Results are immutable and shared
// (std::shared_ptr<const ...>) between the worker and every view, so nothing is copied per view.
#include <QMetaType>
#include <QString>
#include <QStringList>
#include <atomic>
#include <memory>
#include <optional>
#include <vector>

#include "core/analysis/head_metrics.h"
#include "core/analysis/head_vectors.h"
#include "core/model/attention_trace.h"
#include "core/model/model.h"
#include "core/model/w_configuration.h"

namespace qkv::ui {

struct ShownToken {
    int id = 0;
    QString label;  // for chips and tick labels (whitespace made visible)
    QString piece;  // the vocabulary entry
    bool special = false;
};

// The tokens' ids, in order.
std::vector<int> idsOf(const std::vector<ShownToken>& tokens);

struct ComputeRequest {
    quint64 sequence = 0;  // increasing; results of older sequences are dropped
    QString text;
    // Encoder-decoder models: the target sentence (empty: the model writes one, greedily) and
    // which attention is shown.
    QString targetText;
    AttentionKind kind = AttentionKind::Self;
    WConfiguration config;
    GqaPairing pairing = GqaPairing::HuggingFace;  // the weight metrics' query/key head pairing
    int layer = 0;  // the head on screen (captured even when the rest is not)
    int head = 0;
    bool captureAll = false;  // every head regardless of size (batch export)
    // No sentence to read (none typed, or text for a model without a tokenizer): only the
    // weights' metrics, which need none.
    bool weightsOnly = false;
    // The Q·K space pooled over a corpus: the shown head's vectors over these sentences too
    // (self-attention only).
    QStringList pooledSentences;
    std::shared_ptr<std::atomic<bool>> cancel;
};

struct TraceSnapshot {
    quint64 sequence = 0;
    QString text;
    AttentionKind kind = AttentionKind::Self;  // which attention the traces hold
    std::vector<ShownToken> tokens;            // the traces' queries (rows)
    std::vector<ShownToken> keyTokens;     // their keys (columns) when not the queries: the source
    std::vector<ShownToken> sourceTokens;  // the sentence typed (the encoder's input)
    std::vector<ShownToken> targetTokens;  // encoder-decoder models: the decoder's input
    QString targetText;                    // the target sentence the traces used
    bool targetWritten = false;            // the model wrote it (greedy decoding)
    std::optional<int> truncatedFrom;      // token count before cutting to the model's context
    WConfiguration config;
    CaptureSelection capture;
    std::shared_ptr<const AttentionTrace> trace;
    std::shared_ptr<const AttentionTrace> learned;  // the checkpoint as stored (Compare view)
    // File ▸ Compare With…: the compared checkpoint's trace of the same ids under the same
    // configuration and capture (self-attention only), and its name; null without one.
    std::shared_ptr<const AttentionTrace> compared;
    QString comparedName;
    QString modelName;  // the open model's
    double milliseconds = 0;
    QString backend;
    // The shown head's queries and keys over ComputeRequest::pooledSentences, for (pooledLayer,
    // pooledHead); empty when none were asked for.
    std::vector<HeadSample> pooled;
    int pooledLayer = -1, pooledHead = -1;

    bool includes(int layer, int head) const { return capture.includes(layer, head); }
    bool capturesAll() const { return !capture.layer && !capture.head; }
    QStringList labels() const;     // of the rows
    QStringList keyLabels() const;  // of the columns
    const std::vector<ShownToken>& columnTokens() const {
        return keyTokens.empty() ? tokens : keyTokens;
    }
};

struct MetricsSnapshot {
    quint64 sequence = 0;
    WConfiguration config;
    AttentionKind kind = AttentionKind::Self;
    GqaPairing pairing = GqaPairing::HuggingFace;
    std::shared_ptr<const ModelMetrics> metrics;  // weight metrics + the sentence's score symmetry
    double milliseconds = 0;
};

// The shown head's metrics, sent ahead of the whole model's analysis when that one will take a
// while (it is not cached yet): on an 8B model the head is ready in a second, the model in a
// minute.
struct HeadMetricsSnapshot {
    quint64 sequence = 0;
    WConfiguration config;
    AttentionKind kind = AttentionKind::Self;
    GqaPairing pairing = GqaPairing::HuggingFace;
    int layer = 0;
    int head = 0;
    HeadMetrics metrics;
};

using TraceSnapshotPtr = std::shared_ptr<const TraceSnapshot>;
using HeadMetricsSnapshotPtr = std::shared_ptr<const HeadMetricsSnapshot>;
using MetricsSnapshotPtr = std::shared_ptr<const MetricsSnapshot>;

}  // namespace qkv::ui

Q_DECLARE_METATYPE(std::shared_ptr<const qkv::Model>)
Q_DECLARE_METATYPE(qkv::ui::TraceSnapshotPtr)
Q_DECLARE_METATYPE(qkv::ui::MetricsSnapshotPtr)
Q_DECLARE_METATYPE(qkv::ui::HeadMetricsSnapshotPtr)
