#include "core/backend/cpu_attention.h"

#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "core/backend/gemm.h"
#include "core/util/aligned_floats.h"

namespace qkv {
namespace {

using ArrayMap = Eigen::Map<Eigen::ArrayXf>;
using ConstArrayMap = Eigen::Map<const Eigen::ArrayXf>;

// C (m x n, ldc) = alpha · A (m x k) · B, or · Bᵀ when `transposeB`; row-major, one thread.
void product(int m, int n, int k, float alpha, const float* a, int lda, const float* b, int ldb,
             bool transposeB, float* c, int ldc) {
    if (m <= 0 || n <= 0) return;
    gemm<float>({false, transposeB, m, n, k}, alpha, a, lda, b, ldb, 0.0f, c, ldc);
}

// Rows of a block of scores or probabilities: column j of row r is at
// base[r * stride + j - firstColumn]; columns [firstColumn, endColumn) are stored.
struct Block {
    float* base;
    int stride;
    int firstColumn;
    int endColumn;
    float* row(int r) const { return base + static_cast<size_t>(r) * stride; }
    float* at(int r, int column) const { return row(r) + (column - firstColumn); }
};

// One head on one thread.
class HeadAttention {
  public:
    HeadAttention(const CpuAttentionOperands& o, const AttentionLayout& layout,
                  const AttentionOptions& options, int head, float* scores, float* probabilities)
        : m_o(o),
          m_options(options),
          m_mask(options.keyMask()),
          m_dk(layout.headDim),
          m_dv(layout.valueWidth()),
          m_q(o.q + head / layout.queryGroup * layout.headDim),
          m_k(o.k + head / layout.keyGroup * layout.headDim),
          m_v(o.v + head / layout.valueGroup * m_dv),
          m_out(o.out + head * m_dv),
          m_outStride(layout.heads * m_dv),
          m_bias(o.positionBias
                     ? o.positionBias + (o.biasSharedByHeads ? 0 : static_cast<size_t>(head)) *
                                            o.queries * o.keys
                     : nullptr),
          m_sink(o.sinks ? o.sinks + head : nullptr),
          m_scores(scores),
          m_probabilities(probabilities),
          m_row(alignedFloats(o.keys)) {
        const float scale = options.scaleFor(layout.headDim);
        m_productScale = options.scaleOutside ? 1.0f : scale;
        m_postScale = options.scaleOutside ? scale : 1.0f;
    }

    // Without a score transform: query rows in blocks (scratch: kAttentionQueryBlock x keys
    // floats).
    void blockwise(std::vector<float>& scratch) {
        const int first = m_options.firstQuery;
        if (m_scores && first > 0) newKeysOfEarlierQueries();
        scratch.resize(static_cast<size_t>(kAttentionQueryBlock) * m_o.keys);
        for (int r0 = first; r0 < m_o.queries; r0 += kAttentionQueryBlock) {
            const int r1 = std::min(r0 + kAttentionQueryBlock, m_o.queries);
            // The keys some row of the block sees (firstVisible grows with the row).
            const int keyBegin = m_mask.firstVisible(r0);
            const int keyEnd = m_mask.lastVisible(r1 - 1, m_o.keys) + 1;
            const int rows = r1 - r0, width = keyEnd - keyBegin;
            Block s{scratch.data(), width, keyBegin, keyEnd};
            if (m_scores) {  // captured: every key's score, masked or not
                s = {m_scores + static_cast<size_t>(r0) * m_o.keys, m_o.keys, 0, m_o.keys};
                scores(r0, rows, 0, keyBegin, s);
                scores(r0, rows, keyEnd, m_o.keys, s);
            }
            // The visible keys' scores by the same product whether captured or not: a BLAS
            // kernel's edge columns may round otherwise, and capturing a head must not change
            // its numbers.
            scores(r0, rows, keyBegin, keyEnd, s);
            Block p = s;
            if (m_probabilities)
                p = {m_probabilities + static_cast<size_t>(r0) * m_o.keys, m_o.keys, 0, m_o.keys};
            else if (m_scores)
                p = {scratch.data(), width, keyBegin, keyEnd};
            for (int r = 0; r < rows; ++r) softmaxRow(s, p, r, r0 + r);
            product(rows, m_dv, width, 1.0f, p.at(0, keyBegin), p.stride, m_v + value(keyBegin),
                    m_o.valueColumns, false, out(r0), m_outStride);
        }
    }

    // With a score transform: the whole n x n matrix (scratch: up to two of them).
    void whole(ScoreTransform transform, std::vector<float>& scratch,
               std::vector<float>& transposed) {
        const int n = m_o.queries, first = m_options.firstQuery;
        const size_t cells = static_cast<size_t>(n) * n;
        scratch.resize(m_scores && m_probabilities ? 0 : cells);
        float* scores = m_scores ? m_scores : scratch.data();
        product(n, n, m_dk, m_productScale, m_q, m_o.queryColumns, m_k, m_o.keyColumns, true,
                scores, n);
        transposed.assign(scores, scores + cells);
        const float sign = transform == ScoreTransform::Symmetric ? 1.0f : -1.0f;
        for (int i = 0; i < n; ++i)
            for (int j = 0; j < n; ++j)
                scores[i * n + j] = 0.5f * (transposed[i * n + j] + sign * transposed[j * n + i]);
        for (int i = 0; i < n; ++i) softCap(scores + static_cast<size_t>(i) * n, n);
        float* probabilities = m_probabilities ? m_probabilities
                               : m_scores      ? scratch.data()
                                               : scores;
        const Block s{scores, n, 0, n}, p{probabilities, n, 0, n};
        for (int i = first; i < n; ++i) softmaxRow(s, p, i, i);
        if (m_probabilities) zeroNewKeysOfEarlierQueries();
        product(n - first, m_dv, n, 1.0f, p.row(first), n, m_v, m_o.valueColumns, false, out(first),
                m_outStride);
    }

  private:
    // Rows r0.. r0 + rows - 1 of block s, keys [begin, end): the scaled and soft-capped
    // products of the queries with those keys.
    void scores(int r0, int rows, int begin, int end, const Block& s) const {
        if (begin >= end) return;
        product(rows, end - begin, m_dk, m_productScale, query(r0), m_o.queryColumns, key(begin),
                m_o.keyColumns, true, s.at(0, begin), s.stride);
        for (int r = 0; r < rows; ++r) softCap(s.at(r, begin), end - begin);
    }

    const float* query(int row) const { return m_q + static_cast<size_t>(row) * m_o.queryColumns; }
    const float* key(int row) const { return m_k + static_cast<size_t>(row) * m_o.keyColumns; }
    size_t value(int row) const { return static_cast<size_t>(row) * m_o.valueColumns; }
    float* out(int queryRow) const {
        return m_out + static_cast<size_t>(queryRow - m_options.firstQuery) * m_outStride;
    }

    // Prefix reuse: the caller kept the earlier queries' scores of the earlier keys; their scores
    // of the new keys are computed here (masked, so their probabilities are zero).
    void newKeysOfEarlierQueries() {
        const int first = m_options.firstQuery, added = m_o.keys - first;
        product(first, added, m_dk, m_productScale, m_q, m_o.queryColumns, key(first),
                m_o.keyColumns, true, m_scores + first, m_o.keys);
        for (int r = 0; r < first; ++r)
            softCap(m_scores + static_cast<size_t>(r) * m_o.keys + first, added);
        if (m_probabilities) zeroNewKeysOfEarlierQueries();
    }
    void zeroNewKeysOfEarlierQueries() {
        const int first = m_options.firstQuery;
        for (int r = 0; r < first; ++r)
            std::fill_n(m_probabilities + static_cast<size_t>(r) * m_o.keys + first,
                        m_o.keys - first, 0.0f);
    }

    // The soft cap c·tanh(s/c) of `count` <= keys scores in place, computed in the aligned row
    // buffer for the reason softmaxRow gives.
    void softCap(float* s, int count) const {
        if (m_options.softCap <= 0.0f || count <= 0) return;
        const float cap = m_options.softCap;
        std::memcpy(m_row.get(), s, sizeof(float) * count);
        ArrayMap row(m_row.get(), count);
        row = (row / cap).tanh() * cap;
        std::memcpy(s, m_row.get(), sizeof(float) * count);
    }

    // Row r of block p := the masked softmax of row r of s (+ the position bias), beside the
    // head's sink logit where it has one, times the post-scale; query is the row's index among
    // all queries.
    void softmaxRow(const Block& s, const Block& p, int r, int query) const {
        const int first = m_mask.firstVisible(query);
        const int end = m_mask.lastVisible(query, m_o.keys) + 1;  // keys first..end-1 visible
        float* in = s.at(r, first);
        float* row = p.at(r, first);
        // Computed in a buffer that starts on a cache line, then copied: Eigen's vectorised exp
        // and its scalar one for the elements before the first aligned one round differently,
        // so a row's values would depend on where its buffer happens to start (a captured
        // head's trace or the scratch) and differ from run to run with the heap.
        std::memcpy(m_row.get(), in, sizeof(float) * (end - first));
        ArrayMap visible(m_row.get(), end - first);
        if (m_bias)
            visible +=
                ConstArrayMap(m_bias + static_cast<size_t>(query) * m_o.keys + first, end - first);
        // Reformer's rule: mask the token itself unless it has nothing else to attend to.
        const bool maskDiagonal = m_options.maskSelf && end - first > 1;
        float* diagonal = maskDiagonal ? m_row.get() + (query - first) : nullptr;
        if (diagonal) *diagonal = -std::numeric_limits<float>::infinity();
        const float rowMax = m_sink ? std::max(visible.maxCoeff(), *m_sink) : visible.maxCoeff();
        visible = (visible - rowMax).exp();
        // Eigen's vectorised exp clamps its argument, so exp(-inf) can come out denormal.
        if (diagonal) *diagonal = 0.0f;
        const float sinkTerm = m_sink ? std::exp(*m_sink - rowMax) : 0.0f;
        visible *= m_postScale / (visible.sum() + sinkTerm);
        std::memcpy(row, m_row.get(), sizeof(float) * (end - first));
        std::fill(p.at(r, p.firstColumn), row, 0.0f);
        std::fill(row + (end - first), p.at(r, p.endColumn), 0.0f);
    }

    const CpuAttentionOperands& m_o;
    const AttentionOptions& m_options;
    const KeyMask m_mask;
    const int m_dk;
    const int m_dv;
    const float* m_q;
    const float* m_k;
    const float* m_v;
    float* m_out;
    const int m_outStride;
    const float* m_bias;
    const float* m_sink;
    float* m_scores;
    float* m_probabilities;
    AlignedFloats m_row;  // one row of the softmax (softmaxRow)
    float m_productScale = 1.0f;
    float m_postScale = 1.0f;
};

}  // namespace

void cpuAttention(ThreadPool& pool, const CpuAttentionOperands& operands,
                  const AttentionLayout& layout, const AttentionOptions& options,
                  const AttentionCapture* capture) {
    auto captured = [&](std::vector<float*> AttentionCapture::*slots, int h) -> float* {
        if (!capture || h >= static_cast<int>((capture->*slots).size())) return nullptr;
        return (capture->*slots)[h];
    };
    // Heads are independent: each pool thread takes a run of them with its own scratch.
    pool.parallelFor(layout.heads, [&](int, int firstHead, int lastHead) {
        std::vector<float> scratch, transposed;
        for (int h = firstHead; h < lastHead; ++h) {
            HeadAttention head(operands, layout, options, h, captured(&AttentionCapture::scores, h),
                               captured(&AttentionCapture::probabilities, h));
            if (options.transform == ScoreTransform::None)
                head.blockwise(scratch);
            else
                head.whole(options.transform, scratch, transposed);
        }
    });
}

}  // namespace qkv
