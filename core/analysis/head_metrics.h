#pragma once
// The numbers that say how asymmetric each head is (definitions in DESIGN.md, "Analysis
// definitions"). Weight metrics use each head's projection matrices as "d_model x d_k" with
// biases excluded, after the W configuration is applied (so shared-qk gives symmetry 1), and
// are computed from d_k-sized factors: no d_model x d_model matrix is ever decomposed. With
// rotary positions the score of tokens i, j is x_i W_Q R(j - i) W_K^T x_j^T; the weight metrics
// describe W_Q W_K^T without the rotation, as in the literature.
#include <atomic>
#include <optional>
#include <vector>

#include "core/analysis/trace_rows.h"
#include "core/model/attention_trace.h"
#include "core/model/model.h"
#include "core/model/w_configuration.h"
#include "core/util/progress.h"

namespace qkv {

struct HeadMetrics {
    double wqkSymmetry = 0;        // s(W_Q^h W_K^h^T)
    double wqkDirectionality = 0;  // of W_Q^h W_K^h^T (matrix_metrics.h)
    int wqkRank = 0;
    std::vector<double> wqkSingularValues;  // descending, d_k of them
    double eigenPositivity = 0;             // sum Re(lambda) / sum |lambda| of W_Q^h W_K^h^T
    double qkSimilarity = 0;  // subspace similarity of the column spaces of W_Q^h and W_K^h
    double qvSimilarity = 0;
    double kvSimilarity = 0;
    std::optional<double> scoreSymmetry;  // s(S) of the sentence's raw scaled scores
    // With attention sinks (gpt-oss): the mean over query rows of what the sink took,
    // 1 - sum_j A_ij (sinkShares), when the probabilities were captured.
    std::optional<double> sinkShare;
    // Where the head's attention (or implicit map) lies on the sentence (attentionReach): the
    // mean distance to the keys and the share on the query's own token, by |A|.
    std::optional<double> meanDistance;
    std::optional<double> selfShare;
    // Where the layer's mask hides keys (a sliding window, chunks, a sparse attention's indexer):
    // the mean over queries of the dense counterfactual's mass on them (hidden_keys.h), when the
    // scores were captured.
    std::optional<double> droppedMass;
    // A sparse attention layer's: how far its indexer's keys are the head's own top keys
    // (indexerAgreement), when the scores were captured and some query has more keys than kept.
    std::optional<double> indexerAgreement;
    // The OV circuit W_V^h W_O^h (ov_circuit.h).
    int ovRank = 0;
    std::vector<double> ovSingularValues;  // descending, d_k of them
    std::optional<double> ovCopyingScore;  // absent without an output head, or not asked for
    // Latent attention (latent_forms.h), whose fields above describe the non-rotary part: the
    // rotary part's form W_QR^h W_KRᵀ (its key one for every head), rank and symmetry.
    struct RotaryPart {
        int rank = 0;
        double symmetry = 0;
    };
    std::optional<RotaryPart> rotaryPart;
    // Against a second checkpoint of the same model, on the sentence (model_comparison.h): the
    // largest total variation of an attention row (heads captured in both), and the other's
    // W_QK symmetry less this one's.
    std::optional<double> attentionChange;
    std::optional<double> wqkSymmetryChange;
};

struct LayerMetrics {
    double wqkSymmetry = 0;        // s(sum_h W_Q^h W_K^h^T) = s(W_Q W_K^T) over all heads
    double wqkDirectionality = 0;  // of the same sum
    std::vector<HeadMetrics> heads;
};

struct ModelMetrics {
    // Median over layers of LayerMetrics::wqkSymmetry (mean of the two middle ones for an even
    // count). Saponati et al. 2025 measured this as 0.15 for gpt2, 0.19 for distilgpt2 and 0.51
    // for bert-base-uncased.
    double medianLayerWqkSymmetry = 0;
    double medianLayerWqkDirectionality = 0;  // likewise
    std::vector<LayerMetrics> layers;
};

// Median of a list (mean of the two middle values for an even count; 0 for none).
double median(std::vector<double> values);

// Which attention blocks are analysed: the model's self-attention (an encoder-decoder's
// encoder), or an encoder-decoder's decoder self-attention or cross-attention. In
// cross-attention W_Q reads the decoder's stream and W_K the encoder's output, so
// W_Q W_K^T relates two different spaces (docs/definitions.md says what its symmetry means).
enum class AttentionKind { Self, DecoderSelf, Cross };
// The layers and heads of that kind's stack (the decoder's for DecoderSelf and Cross).
Architecture architectureOf(const Model& model, AttentionKind kind);

// Which key/value head a query head reads under grouped-query attention. Hugging Face's (and
// the forward's): h / group. Published GQA figures (Saponati et al. 2025) paired h % kv_heads,
// which matches no head the model computes; offered to show where those numbers come from.
enum class GqaPairing { HuggingFace, Modulo };

struct AnalysisOptions {
    AttentionKind kind = AttentionKind::Self;
    GqaPairing pairing = GqaPairing::HuggingFace;
    // The OV copying score needs one d_model x d_model product W_U W_E over the vocabulary per
    // model (2 d_model^2 vocab flops: a second for GPT-2 small, minutes for an 8B model), kept
    // on disk for the next analysis (round_trip_cache.h).
    bool copyingScores = true;
    // Blocks of that product done, of all, when it is computed (not read from the cache):
    // tens of seconds before the first layer on an 8B model.
    Progress roundTripProgress = {};
};

// A head's block of a projection as stored, and `order`: the stored column of each column the
// model uses, where the file keeps them in another order (LinearWeights::outputOrder, a GGUF
// file's Llama W_Q and W_K); empty: as stored.
struct HeadProjection {
    MatrixView view;
    std::vector<int> order;
    Eigen::MatrixXd toDouble() const;  // the block, its columns in the model's order
};

// The d_model x d_k (values: x d_v) weight (biases excluded) that fills `slot` of query head `head`
// in `layer` under `config` (GQA: a K or V source of query head h is the KV head `pairing` names).
// Latent attention has no such stored weight (latent_forms.h computes its heads'): throws
// qkv::Error.
HeadProjection headProjection(const Model& model, const WConfiguration& config, int layer, int head,
                              Projection slot, AttentionKind kind = AttentionKind::Self,
                              GqaPairing pairing = GqaPairing::HuggingFace);
// QK-norm (Qwen3, Gemma 3, OLMo 2): the gains g_q ∘ g_k (d_k of them) the norms put between the
// head's query and key slots under the configuration, so that its bilinear form is
// W_Q^h diag(g_q ∘ g_k) W_K^h^T. The norms' per-token RMS factors are left out: they scale each
// score, not the form. A slot filled from W_Q takes q_norm's gains, from W_K k_norm's, from W_V
// none (1). nullopt for a model without QK-norm.
std::optional<Eigen::VectorXd> headScoreGains(const Model& model, const WConfiguration& config,
                                              int layer, int head,
                                              AttentionKind kind = AttentionKind::Self,
                                              GqaPairing pairing = GqaPairing::HuggingFace);
// The d_k x d_model rows of the layer's output projection that read query head `head`.
MatrixView headOutputRows(const Model& model, int layer, int head,
                          AttentionKind kind = AttentionKind::Self);

// Weight metrics of every head and layer under `config`; with a trace (whose scores were
// captured) also each head's score symmetry; a trace of another shape throws qkv::Error.
// Layer by layer: only one layer's factors are held at a time. `cancel` is polled before each
// layer (throws qkv::Cancelled, core/util/error.h); `progress` is told after each.
ModelMetrics analyzeModel(const Model& model, const WConfiguration& config,
                          const AttentionTrace* trace = nullptr,
                          const std::atomic<bool>* cancel = nullptr, const Progress& progress = {},
                          const AnalysisOptions& options = {});

// Fills what the trace gives of every head it captured (score symmetry; the sink share where
// the heads had sinks; with `masks`, the architecture whose layers' masks the trace ran under,
// the dropped mass) into metrics computed without a trace (the weights' part, which a caller may
// cache per configuration).
void addTraceMetrics(ModelMetrics& metrics, const AttentionTrace& trace,
                     const Architecture* masks = nullptr, const WConfiguration& config = {});

// Metrics of one head only (for the weight panel).
HeadMetrics analyzeHead(const Model& model, const WConfiguration& config, int layer, int head,
                        const AttentionTrace* trace = nullptr, const AnalysisOptions& options = {});

// Parameter counts of a head's bilinear form: factored 2 * d_model * d_k versus a full
// d_model x d_model matrix. Where the configuration fills the Q and K slots from one matrix
// (shared-qk, single-w), the form W Wᵀ has d_model * d_k parameters.
struct BilinearParameterCount {
    long long factored = 0;
    long long full = 0;
    bool oneFactor = false;  // the Q and K slots read the same matrix
};
BilinearParameterCount bilinearParameterCount(const Architecture& config,
                                              const WConfiguration& configuration = {});

}  // namespace qkv
