#pragma once
// The compute interface the forward pass is written against. A backend owns its tensors (host
// memory for the CPU, device memory for Vulkan); the forward never touches their contents except
// through upload/download, so a new backend slots in without changing model code.
//
// Conventions: tensors are float32 matrices, activations row-major with one token per row.
// A linear layer computes y = x W + b with W stored "in x out" (see MatrixView). Work may be
// queued: results are guaranteed only after download() or synchronize().
#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "core/backend/activation.h"
#include "core/backend/key_mask.h"
#include "core/backend/matrix_view.h"
#include "core/backend/rotary_frequencies.h"

namespace qkv {

class Tensor {
  public:
    virtual ~Tensor() = default;
    int rows() const { return m_rows; }
    int cols() const { return m_cols; }

  protected:
    Tensor(int rows, int cols) : m_rows(rows), m_cols(cols) {}

  private:
    int m_rows;
    int m_cols;
};

enum class ScoreTransform { None, Symmetric, Skew };

// How query heads find their key and value heads. Each of q, k, v holds heads side by side
// (head i of q and k in columns [i * headDim, (i + 1) * headDim), of v and the output in
// [i * valueWidth(), ...)); query head h reads q head h / queryGroup, k head h / keyGroup and
// v head h / valueGroup (grouped-query attention).
struct AttentionLayout {
    int heads = 0;
    int headDim = 0;
    int queryGroup = 1;
    int keyGroup = 1;
    int valueGroup = 1;
    int valueDim = 0;  // a value head's width where it differs from headDim (latent attention)

    int valueWidth() const { return valueDim > 0 ? valueDim : headDim; }
};

// Added to a block's sum of squares in normalizeHeads: a zero block stays zero (0 / sqrt(eps))
// instead of 0 / 0; negligible unless the block itself is nearly zero.
constexpr float kNormalizeHeadsEps = 1e-12f;

// Gated DeltaNet's heads (Qwen3.5's and Qwen3-Next's linear layers): value head h reads key head
// h / (valueHeads / keyHeads). q and k hold keyHeads heads keyDim wide (unit vectors: the caller
// normalises them), v and the output valueHeads heads valueDim wide; queries are scaled by
// queryScale (1/√keyDim).
struct DeltaRuleLayout {
    int keyHeads = 0, valueHeads = 0;
    int keyDim = 0, valueDim = 0;
    float queryScale = 1.0f;
};

// Mamba-2's heads (Nemotron-H, Granite 4, Falcon-H1): x holds `heads` heads headDim wide, B and
// C `groups` groups stateDim wide (head h reads group h / (heads / groups)), dt one column per
// head. Δ is clamped to [dtMin, dtMax].
struct StateSpaceLayout {
    int heads = 0, headDim = 0;
    int groups = 0, stateDim = 0;
    float dtMin = 0.0f;
    float dtMax = std::numeric_limits<float>::infinity();
};

struct AttentionOptions {
    bool causal = true;
    bool maskSelf = false;      // Reformer: a token may not attend to itself unless nothing else
    bool scaleOutside = false;  // `scale` applied after the softmax instead of before
    ScoreTransform transform = ScoreTransform::None;  // applied to the scaled scores, pre-mask
    float scale = 0.0f;                               // multiplies q·k; 0: 1/sqrt(headDim)
    float softCap = 0.0f;  // after the transform: s := cap·tanh(s/cap) (Gemma-2); 0: none
    int window = 0;        // query i sees keys i-window < j (sliding window); 0: all
    int reach = 0;         // query i sees keys |i - j| <= reach (bidirectional local); 0: all
    int chunk = 0;         // query i sees keys j in its chunk, j / chunk == i / chunk; 0: all
    // Added to each head's scores before the mask (T5's relative position bias): heads·n_q rows
    // of n_k, head h's rows first, or n_q rows every head shares (the keys a sparse attention's
    // indexer kept). Not part of the captured scores. Null: none.
    const Tensor* positionBias = nullptr;
    // gpt-oss's attention sinks: a learned logit per query head (heads values) that joins each
    // row's softmax as one more column and is then dropped, so a row sums to one minus the
    // sink's share. Not part of the captured scores. Null: none.
    const Tensor* sinks = nullptr;
    // Prefix reuse: the queries before it were computed earlier. q still holds every query (a
    // score transform and the captured scores of new keys read them); out has one row per query
    // from firstQuery on. Only where earlier rows cannot change: causal, no position bias.
    int firstQuery = 0;

    float scaleFor(int headDim) const {
        return scale > 0.0f ? scale : 1.0f / std::sqrt(static_cast<float>(headDim));
    }
    KeyMask keyMask() const { return {causal, window, reach, chunk}; }
};

// Whether an attention's shapes suit its options: n_q and n_k differ only without a mask or a
// score transform (both need a square), and a position bias has heads·n_q rows of n_k.
// A query offset needs a causal mask and no position bias.
inline bool attentionShapeAllowed(const AttentionOptions& o, int queries, int keys, int heads) {
    const bool square = queries == keys;
    const bool unmasked = !o.causal && !o.maskSelf && o.window == 0 && o.reach == 0 &&
                          o.chunk == 0 && o.transform == ScoreTransform::None;
    const bool bias =
        !o.positionBias ||
        ((o.positionBias->rows() == heads * queries || o.positionBias->rows() == queries) &&
         o.positionBias->cols() == keys);
    const bool offset = o.firstQuery == 0 ||
                        (o.firstQuery > 0 && o.firstQuery < queries && o.causal && !o.positionBias);
    const bool sinks = !o.sinks || o.sinks->rows() * o.sinks->cols() == heads;
    return queries > 0 && keys > 0 && (square || unmasked) && bias && offset && sinks;
}

// Whether a row move (gatherRows, addWeightedRows) suits its tensors: one listed row per row of
// the listed tensor, each a distinct row of the indexed one, and equal widths.
inline bool rowMoveAllowed(const std::vector<int>& rows, const Tensor& indexed,
                           const Tensor& listed) {
    std::vector<int> sorted = rows;
    std::sort(sorted.begin(), sorted.end());
    return indexed.cols() == listed.cols() && static_cast<int>(rows.size()) == listed.rows() &&
           (sorted.empty() || (sorted.front() >= 0 && sorted.back() < indexed.rows())) &&
           std::adjacent_find(sorted.begin(), sorted.end()) == sorted.end();
}

// Whether a column gather suits its tensors: rows agree, one listed column per destination
// column, each a column of [first | second].
inline bool columnGatherAllowed(const Tensor& first, const Tensor* second,
                                const std::vector<int>& columns, const Tensor& destination) {
    const int available = first.cols() + (second ? second->cols() : 0);
    return (!second || second->rows() == first.rows()) && destination.rows() == first.rows() &&
           static_cast<int>(columns.size()) == destination.cols() &&
           std::all_of(columns.begin(), columns.end(),
                       [&](int c) { return c >= 0 && c < available; });
}

// Host destinations for what a head computed: n_q x n_k row-major per query head, nullptr where
// not wanted. Scores are the scaled (transformed, soft-capped) scores before masking; probabilities
// are the weights applied to the values. With a query offset p the caller has filled the top-left
// p x p block (what the earlier computation captured); the backend fills every other cell.
struct AttentionCapture {
    std::vector<float*> scores;
    std::vector<float*> probabilities;
};

class Backend {
  public:
    virtual ~Backend() = default;
    virtual std::string name() const = 0;

    // A tensor with undefined contents (every op overwrites its whole output).
    virtual std::unique_ptr<Tensor> create(int rows, int cols) = 0;
    virtual std::unique_ptr<Tensor> upload(const float* rowMajor, int rows, int cols) = 0;
    // Weights and vectors that live as long as the model: the CPU wraps host memory without a
    // copy, a GPU backend copies once to device memory.
    virtual std::unique_ptr<Tensor> weight(const MatrixView& w) = 0;
    virtual std::unique_ptr<Tensor> vector(const VectorView& v) = 0;
    // `weight` is about to be read: where it is a mapped file's pages (the CPU's weights), they
    // are read ahead now, all together and only they (a mixture of experts names the experts its
    // tokens chose before computing any, so a model larger than memory reads no others).
    virtual void prefetch(const Tensor& weight) { (void)weight; }
    // Runs fn(backend, item) for every item in [0, count), where the items' operations touch
    // disjoint tensors (a mixture's experts): the CPU runs items at once, one per thread, each on
    // a single-threaded backend of its own whose tensors are its own kind; other backends run
    // them one after another on themselves. The operations give the same values either way.
    virtual void forEachItem(int count, const std::function<void(Backend&, int)>& fn) {
        for (int item = 0; item < count; ++item) fn(*this, item);
    }
    virtual void download(const Tensor& t, float* rowMajor) = 0;
    // Like download(), but the host buffer is only guaranteed filled after the next
    // synchronize() or download(): lets a GPU backend keep one submission per forward.
    virtual void enqueueDownload(const Tensor& t, float* rowMajor) { download(t, rowMajor); }
    virtual void synchronize() = 0;

    // y = x W (+ b when bias is not null). y must have x.rows() rows and W.cols() columns.
    virtual void linear(const Tensor& x, const Tensor& w, const Tensor* bias, Tensor& y) = 0;
    // Row-wise LayerNorm (beta may be null) and RMSNorm.
    virtual void layerNorm(const Tensor& x, const Tensor& gamma, const Tensor* beta, float eps,
                           Tensor& y) = 0;
    virtual void rmsNorm(const Tensor& x, const Tensor& gamma, float eps, Tensor& y) = 0;
    // RMSNorm of each row's each headDim-wide block, scaled by gamma: headDim wide (QK-norm), or
    // as wide as a row, each block scaled by its own part (Mamba-2's norm per group).
    virtual void rmsNormHeads(const Tensor& x, int headDim, const Tensor& gamma, float eps,
                              Tensor& y) = 0;
    // Activation sparsity (Gemma 3n): y := relu(x − (mean + z·std)) of each row, its mean and
    // biased standard deviation; keeps about the share of a row above the normal's z quantile.
    virtual void gaussianTopK(const Tensor& x, float z, Tensor& y) = 0;
    // In place: GELU (tanh or exact) or ReLU. The gated kinds are glu().
    virtual void activate(Tensor& x, Activation activation) = 0;
    // up = act(gate) * up for a gated activation: SwiGlu (silu), GeluTanhGlu, GeluGlu (exact) or
    // SigmoidGlu;
    // with ClampedSwiGlu, up = ClampedSwiGlu(gate, up) (gpt-oss's gate and up kept apart).
    virtual void glu(const Tensor& gate, Tensor& up, Activation gated) = 0;
    // out (rows x cols/2) := ClampedSwiGlu of gateUp (rows x cols), whose columns alternate gate
    // and up (gpt-oss's experts: gate j in column 2j, up j in column 2j + 1).
    virtual void clampedSwiGlu(const Tensor& gateUp, Tensor& out) = 0;
    virtual void add(Tensor& accumulator, const Tensor& x) = 0;
    // x := xIELU(x) in place with the layer's parameters (activation.h).
    virtual void xielu(Tensor& x, const XIeluParameters& parameters) = 0;
    // Rotary position embedding, row i at position firstPosition + i, on the first
    // frequencies.rotaryDims() of each head (partial rotary); the rest are copied. Pair j (dims
    // j and j + rotaryDims/2, Hugging Face's rotate_half, or 2j and 2j + 1 when interleaved) of
    // a row at position p turns by the float32 angle p · inverse[j], with cos and sin multiplied
    // by frequencies.scale.
    virtual void rope(const Tensor& x, int headDim, const RotaryFrequencies& frequencies,
                      int firstPosition, Tensor& y) = 0;
    // Each row's each headDim-wide block times 1/sqrt(its sum of squares + eps): Reformer's unit
    // keys (eps kNormalizeHeadsEps, so a zero block stays zero), Gated DeltaNet's q and k.
    virtual void normalizeHeads(const Tensor& x, int headDim, float eps, Tensor& y) = 0;
    // Depthwise causal convolution along the tokens: y[t, c] = Σ_j taps[c·K + j] · x[t − K + 1 +
    // j, c] (+ bias[c] where bias is not null) with x zero before the first token; taps holds K
    // values per column of x (the short convolutions of Gated DeltaNet, Mamba-2 and LFM2).
    virtual void causalConv(const Tensor& x, const Tensor& taps, const Tensor* bias, Tensor& y) = 0;
    // destination rows [destinationFirst, + count) := source rows [first, + count).
    virtual void copyRows(const Tensor& source, int first, int count, Tensor& destination,
                          int destinationFirst) = 0;
    // A mixture of experts' row moves. gatherRows: destination row i := source row rows[i]
    // (destination has rows.size() rows). addWeightedRows: destination row rows[i] +=
    // weights[i] · source row i (source has rows.size() rows; no row is listed twice).
    virtual void gatherRows(const Tensor& source, const std::vector<int>& rows,
                            Tensor& destination) = 0;
    virtual void addWeightedRows(const Tensor& source, const std::vector<int>& rows,
                                 const std::vector<float>& weights, Tensor& destination) = 0;
    // destination column j := column columns[j] of [first | second], second's columns numbered
    // after first's (second may be null); the rows of all three agree and every destination
    // column is listed. Latent attention's per-head layout is assembled this way.
    virtual void gatherColumns(const Tensor& first, const Tensor* second,
                               const std::vector<int>& columns, Tensor& destination) = 0;

    // Multi-head attention: out (n_q x heads*valueWidth) = softmax(mask(S + B)) V per head, with
    // S = cap(transform(scale · q k^T)) and B the optional position bias. q has n_q rows, k and
    // v n_k: they differ only in cross-attention, which allows no causal, window, self mask or
    // score transform. With options.firstQuery, out has only the later queries' rows. Fills
    // capture's host buffers (n_q x n_k per head; may be null) by the time of the next
    // download() or synchronize().
    virtual void attention(const Tensor& q, const Tensor& k, const Tensor& v,
                           const AttentionLayout& layout, const AttentionOptions& options,
                           Tensor& out, const AttentionCapture* capture) = 0;
    // Gated DeltaNet's core, per value head: β_t = σ(b_t), γ_t = exp(−exp(aLog)·softplus(a_t +
    // dtBias)) (b and a: n x valueHeads; aLog and dtBias one value per value head), the state
    // S_t = γ_t S_{t−1}(I − β_t k_t k_tᵀ) + β_t v_t k_tᵀ from S_0 = 0, and out_t = S_t q_t. The
    // output is linear in v: out = A v with the head's implicit attention
    // A_ts = β_s k_sᵀ [Π_{r=s+1..t} γ_r (I − β_r k_r k_rᵀ)] q_t (s ≤ t, the product in increasing
    // r), which capture.probabilities receives per value head (n x n, zero above the diagonal).
    virtual void gatedDeltaRule(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& b,
                                const Tensor& a, const Tensor& aLog, const Tensor& dtBias,
                                const DeltaRuleLayout& layout, Tensor& out,
                                const AttentionCapture* capture) = 0;
    // Mamba-2's state-space core in its dual (attention) form, per head h of group g:
    // Δ_t = clamp(softplus(dt_t + dtBias), dtMin, dtMax), A = −exp(aLog), and
    // out_t = Σ_{s≤t} M_ts x_s + D x_t with the head's implicit attention
    // M_ts = (C_t · B_s) exp(Σ_{r=s+1..t} Δ_r A) Δ_s, which capture.probabilities receives per
    // head (n x n, zero above the diagonal). aLog, dtBias and D hold one value per head.
    virtual void stateSpace(const Tensor& x, const Tensor& B, const Tensor& C, const Tensor& dt,
                            const Tensor& aLog, const Tensor& dtBias, const Tensor& D,
                            const StateSpaceLayout& layout, Tensor& out,
                            const AttentionCapture* capture) = 0;
};

// The CPU backend (Eigen + OpenBLAS). Always available.
std::unique_ptr<Backend> createCpuBackend();

// The threads each CPU backend created afterwards uses (default: every core). An interactive
// front end leaves one core to its GUI thread, which draws while the backend computes.
void setCpuBackendThreads(int threads);

}  // namespace qkv
