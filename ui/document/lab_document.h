#pragma once
// The state of one QKV Lab session: the open model, the sentence, the W configuration, the head
// on screen, what its heatmap shows, and the latest results. Views read from it and react to its
// signals; they never compute. Slow work goes to a ComputeWorker on its own thread: each request
// is numbered, a newer request cancels the running one, and a result that is not the latest
// request's is dropped. Typing is paced instead (TypingPacer): it computes at once when nothing
// runs and the last computation was fast, never cancels a running computation, and sends the
// latest text as soon as that one ends.
#include <QObject>
#include <QString>
#include <QThread>
#include <atomic>
#include <memory>
#include <optional>

#include "core/model/model.h"
#include "core/model/w_configuration.h"
#include "ui/compute/compute_types.h"
#include "ui/compute/latest_request.h"
#include "ui/document/head_annotations.h"
#include "ui/document/typing_pacer.h"
#include "ui/plot/color_maps.h"
#include "ui/plot/heatmap_mode.h"

namespace qkv::ui {

class ComputeWorker;

struct TokenPair {
    int query = 0;  // the attending token i (heatmap row)
    int key = 0;    // the attended token j (heatmap column)
    bool operator==(const TokenPair&) const = default;
};

struct PinnedCell {
    std::optional<int> row;
    std::optional<int> column;
};

class LabDocument : public QObject {
    Q_OBJECT
  public:
    explicit LabDocument(QObject* parent = nullptr);
    ~LabDocument() override;

    // Opening runs on the worker: modelLoading now, then modelChanged or modelFailed (or
    // loadCancelled when cancelComputation() stops it; the model open before stays open).
    void openModel(const QString& folder);
    bool isLoading() const { return m_loading; }
    const Model* model() const { return m_model.get(); }

    // File ▸ Compare With…: a second checkpoint of the open model (a GGUF quantisation, the
    // folder it came from) that each computation also runs, opened on the worker
    // (comparisonChanged, or comparisonFailed with the reason). An empty location stops
    // comparing; opening another model stops it too.
    void setComparison(const QString& location);
    QString comparisonName() const { return m_comparisonName; }  // empty: none
    QString modelFolder() const;
    QString loadingFolder() const { return m_loadingFolder; }

    QString text() const { return m_text; }
    void setText(const QString& text);  // recomputes as TypingPacer says

    // Encoder-decoder models: the target sentence the decoder reads (empty: the model writes
    // one, which then appears here), and which of the three attentions the views show.
    QString targetText() const { return m_targetText; }
    void setTargetText(const QString& text);
    // Whether targetText() is what the model wrote rather than what the user typed.
    bool targetTextWritten() const { return m_targetWritten; }
    AttentionKind attentionKind() const { return m_kind; }
    void setAttentionKind(AttentionKind kind);
    // The shown kind's stack: its layers and heads (the decoder's for decoder and cross).
    Architecture shownArchitecture() const;
    // The masks of the shown kind's layer (cross-attention has none).
    KeyMask shownMask(int layer) const;
    // The shown stack's layer kind where its layers differ ("local, window 4, rotary θ=10000");
    // empty otherwise and for an encoder-decoder's stacks.
    QString shownLayerKind(int layer) const;

    const WConfiguration& config() const { return m_config; }
    void setConfig(const WConfiguration& config);

    // How the weight metrics pair query and key heads of grouped-query models (head_metrics.h).
    GqaPairing gqaPairing() const { return m_pairing; }
    void setGqaPairing(GqaPairing pairing);

    // Sentences whose vectors of the shown head join the sentence's in the Q·K space (each
    // head change then recomputes); empty: the sentence alone.
    const QStringList& pooledSentences() const { return m_pooled; }
    void setPooledSentences(const QStringList& sentences);

    int layer() const { return m_layer; }
    int head() const { return m_head; }
    // What a layer offers to select: its heads, or, for a short convolution (LFM2), which has
    // none, its band alone (one entry, "head" 0); 0 for a block without a mixer.
    int selectableHeads(int layer) const;
    // Whether the selected layer is a short convolution: the Head view draws its band, and the
    // views of one head have nothing to show.
    bool showsBand() const;
    void setHead(int layer, int head);  // clamped to the model's layers and heads
    void stepHead(int delta);           // wraps into the next / previous layer
    void stepLayer(int delta);

    HeatmapMode mode() const { return m_mode; }
    void setMode(HeatmapMode mode);

    std::optional<TokenPair> tokenPair() const { return m_tokenPair; }
    void setTokenPair(std::optional<TokenPair> pair);

    // A pinned token of the sentence typed (the source of an encoder-decoder model): its row
    // and column are marked in every view until unpinned. Kept while typing where it still exists.
    std::optional<int> pinnedToken() const { return m_pinned; }
    void setPinnedToken(std::optional<int> token);
    // Where the pin is in the shown attention's heatmap: row and column under self-attention,
    // the column (a source token) under cross-attention, nowhere in the decoder's.
    PinnedCell pinnedCell() const;
    // A pin restored with a session before its sentence's result exists: checked (and dropped
    // if out of range) when that result arrives.
    void restorePinnedToken(std::optional<int> token);

    // The user's names of heads, kept until another model opens. annotation() and
    // setAnnotation() address a head of the shown attention; an empty name removes it.
    const HeadAnnotations& annotations() const { return m_annotations; }
    QString annotation(int layer, int head) const;
    void setAnnotation(int layer, int head, const QString& name);
    void setAnnotations(const HeadAnnotations& annotations);

    const ColorScheme& colorScheme() const { return m_colors; }
    void setColorScheme(const ColorScheme& scheme);

    QString backendChoice() const { return m_backendChoice; }  // auto, cpu or vulkan
    QString backendName() const { return m_backendName; }      // what actually runs
    void setBackendChoice(const QString& choice);

    void recompute();        // now, cancelling the running computation
    void computeAllHeads();  // recompute keeping every head (batch export of long sentences)
    // Stops the running computation, or the opening of a model: the document is idle at once,
    // and text typed while it ran is not computed until the next edit or recompute().
    void cancelComputation();

    TraceSnapshotPtr snapshot() const { return m_snapshot; }
    MetricsSnapshotPtr metrics() const { return m_metrics; }
    // The shown head's metrics while the whole model's are being computed (else null).
    HeadMetricsSnapshotPtr headMetrics() const { return m_headMetrics; }
    QString computeError() const { return m_error; }
    bool isBusy() const { return m_busy; }
    // Typed text waits to be computed: for a pause in the typing, or for the running
    // computation to end.
    bool isTypingPending() const { return m_typing.isPending(); }

  signals:
    void modelLoading(QString folder);
    void modelChanged();
    void modelFailed(QString folder, QString message);
    void loadCancelled(QString folder);
    void textChanged(QString text);
    void targetTextChanged(QString text);
    void attentionKindChanged();
    void configChanged();
    void headChanged(int layer, int head);
    void modeChanged();
    void tokenPairChanged();
    void pinnedTokenChanged();
    void annotationsChanged();
    void colorSchemeChanged();
    void backendChanged(QString name);
    void backendFailed(QString choice, QString message);
    void busyChanged(bool busy);
    // The current computation's layers done in `stage` ("forward", "analysis").
    void progressChanged(QString stage, int done, int total);
    void snapshotChanged();
    void metricsChanged();
    void computeFailed(QString message);
    void comparisonChanged();
    void comparisonFailed(QString location, QString message);

  private:
    void submit(bool captureAll = false);
    void clearResults();
    void setBusy(bool busy);
    // Text the model can take: words with a tokenizer, or "#ids".
    bool hasReadableSentence() const;
    void onModelLoaded(quint64 load, const std::shared_ptr<const qkv::Model>& model,
                       QString backendChoice, QString backendName);
    void onModelFailed(quint64 load, const QString& folder, const QString& message);
    void cancelLoading();
    void onBackendChanged(QString choice, QString name);
    void onBackendFailed(const QString& choice, const QString& message);
    void onTraceReady(const TraceSnapshotPtr& snapshot);
    void onMetricsReady(const MetricsSnapshotPtr& metrics);
    void onComputeFailed(quint64 sequence, const QString& message);
    void onComparisonFailed(const QString& location, const QString& message);

    QThread m_thread;
    ComputeWorker* m_worker = nullptr;
    TypingPacer m_typing;

    std::shared_ptr<const Model> m_model;
    QString m_comparisonName;
    bool m_loading = false;
    QString m_loadingFolder;
    QString m_text;
    QString m_targetText;
    bool m_targetWritten = false;  // m_targetText is what the model wrote, not what was typed
    AttentionKind m_kind = AttentionKind::Self;
    WConfiguration m_config;
    int m_layer = 0;
    int m_head = 0;
    HeatmapMode m_mode = HeatmapMode::Attention;
    std::optional<TokenPair> m_tokenPair;
    std::optional<int> m_pinned;
    HeadAnnotations m_annotations;
    GqaPairing m_pairing = GqaPairing::HuggingFace;
    QStringList m_pooled;
    ColorScheme m_colors;
    QString m_backendChoice = QStringLiteral("auto");
    QString m_backendName;

    LatestRequest m_loads;         // model openings
    LatestRequest m_computations;  // forwards and metrics
    TraceSnapshotPtr m_snapshot;
    MetricsSnapshotPtr m_metrics;
    HeadMetricsSnapshotPtr m_headMetrics;
    QString m_error;
    bool m_busy = false;
};

}  // namespace qkv::ui
