#include "core/backend/cpu_attention.h"

#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "core/backend/gemm.h"

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

void softCap(float cap, float* s, Eigen::Index count) {
    if (cap <= 0.0f) return;
    ArrayMap all(s, count);
    all = (all / cap).tanh() * cap;
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
          m_bias(o.positionBias ? o.positionBias + static_cast<size_t>(head) * o.queries * o.keys
                                : nullptr),
          m_sink(o.sinks ? o.sinks + head : nullptr),
          m_scores(scores),
          m_probabilities(probabilities) {
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
                product(rows, m_o.keys, m_dk, m_productScale, query(r0), m_o.queryColumns, m_k,
                        m_o.keyColumns, true, s.row(0), s.stride);
                softCap(m_options.softCap, s.row(0), static_cast<Eigen::Index>(rows) * m_o.keys);
            } else {
                product(rows, width, m_dk, m_productScale, query(r0), m_o.queryColumns,
                        key(keyBegin), m_o.keyColumns, true, s.row(0), s.stride);
                for (int r = 0; r < rows; ++r) softCap(m_options.softCap, s.row(r), width);
            }
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
        softCap(m_options.softCap, scores, static_cast<Eigen::Index>(cells));
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
            softCap(m_options.softCap, m_scores + static_cast<size_t>(r) * m_o.keys + first, added);
        if (m_probabilities) zeroNewKeysOfEarlierQueries();
    }
    void zeroNewKeysOfEarlierQueries() {
        const int first = m_options.firstQuery;
        for (int r = 0; r < first; ++r)
            std::fill_n(m_probabilities + static_cast<size_t>(r) * m_o.keys + first,
                        m_o.keys - first, 0.0f);
    }

    // Row r of block p := the masked softmax of row r of s (+ the position bias), beside the
    // head's sink logit where it has one, times the post-scale; query is the row's index among
    // all queries.
    void softmaxRow(const Block& s, const Block& p, int r, int query) const {
        const int first = m_mask.firstVisible(query);
        const int end = m_mask.lastVisible(query, m_o.keys) + 1;  // keys first..end-1 visible
        float* in = s.at(r, first);
        float* row = p.at(r, first);
        if (row != in) std::memcpy(row, in, sizeof(float) * (end - first));
        ArrayMap visible(row, end - first);
        if (m_bias)
            visible +=
                ConstArrayMap(m_bias + static_cast<size_t>(query) * m_o.keys + first, end - first);
        // Reformer's rule: mask the token itself unless it has nothing else to attend to.
        const bool maskDiagonal = m_options.maskSelf && end - first > 1;
        float* diagonal = maskDiagonal ? p.at(r, query) : nullptr;
        if (diagonal) *diagonal = -std::numeric_limits<float>::infinity();
        const float rowMax = m_sink ? std::max(visible.maxCoeff(), *m_sink) : visible.maxCoeff();
        visible = (visible - rowMax).exp();
        // Eigen's vectorised exp clamps its argument, so exp(-inf) can come out denormal.
        if (diagonal) *diagonal = 0.0f;
        const float sinkTerm = m_sink ? std::exp(*m_sink - rowMax) : 0.0f;
        visible *= m_postScale / (visible.sum() + sinkTerm);
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
