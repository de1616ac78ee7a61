#include "core/backend/cpu_mixers.h"

#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <vector>

namespace qkv {

void cpuCausalConv(ThreadPool& pool, const float* x, int tokens, int channels, const float* taps,
                   int kernel, const float* bias, float* y) {
    pool.parallelFor(tokens, [&](int, int first, int last) {
        for (int t = first; t < last; ++t)
            for (int c = 0; c < channels; ++c) {
                double sum = 0.0;
                for (int j = 0; j < kernel; ++j) {
                    const int source = t - kernel + 1 + j;
                    if (source >= 0)
                        sum += static_cast<double>(taps[static_cast<size_t>(c) * kernel + j]) *
                               x[static_cast<size_t>(source) * channels + c];
                }
                if (bias) sum += bias[c];
                y[static_cast<size_t>(t) * channels + c] = static_cast<float>(sum);
            }
    });
}

namespace {

using RowMatrixXd = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

struct DeltaRuleGate {
    double beta;   // σ(b): how much of token t is written
    double decay;  // γ = exp(−exp(A_log) · softplus(a + dt_bias)): how much of the state is kept
};

// torch's softplus (beta 1, threshold 20), as transformers calls it.
double softplus(double x) { return x > 20.0 ? x : std::log1p(std::exp(x)); }

DeltaRuleGate deltaRuleGate(const DeltaRuleOperands& o, int valueHeads, int t, int h) {
    const size_t at = static_cast<size_t>(t) * valueHeads + h;
    const double g = -std::exp(static_cast<double>(o.aLog[h])) *
                     softplus(static_cast<double>(o.a[at]) + o.dtBias[h]);
    return {1.0 / (1.0 + std::exp(-static_cast<double>(o.b[at]))), std::exp(g)};
}

// Value head h's rows of token t in float64: q (scaled) and k of its key head, its v, and where
// its output goes.
struct DeltaRuleHeadRows {
    const DeltaRuleOperands& o;
    const DeltaRuleLayout& l;
    int h;

    int keyColumn() const { return h / (l.valueHeads / l.keyHeads) * l.keyDim; }
    Eigen::VectorXd k(int t) const {
        return read(o.k, l.keyHeads * l.keyDim, t, keyColumn(), l.keyDim);
    }
    Eigen::VectorXd q(int t) const {
        return read(o.q, l.keyHeads * l.keyDim, t, keyColumn(), l.keyDim) * l.queryScale;
    }
    Eigen::VectorXd v(int t) const {
        return read(o.v, l.valueHeads * l.valueDim, t, h * l.valueDim, l.valueDim);
    }
    Eigen::Map<Eigen::VectorXf> out(int t) const {
        return {o.out + static_cast<size_t>(t) * l.valueHeads * l.valueDim + h * l.valueDim,
                l.valueDim};
    }

  private:
    static Eigen::VectorXd read(const float* m, int columns, int t, int first, int width) {
        return Eigen::Map<const Eigen::VectorXf>(m + static_cast<size_t>(t) * columns + first,
                                                 width)
            .cast<double>();
    }
};

// Value head h when its map is not kept: the state S (d_k x d_v) token by token,
// S_t = γ_t (I − β_t k_t k_tᵀ) S_{t−1} + β_t k_t v_tᵀ and out_t = S_tᵀ q_t, which is A·V summed
// the other way round (S_tᵀ = Σ_{s≤t} v_s u_s): linear in the tokens where the map is quadratic.
void deltaRuleHeadByState(const DeltaRuleHeadRows& rows) {
    const DeltaRuleOperands& o = rows.o;
    Eigen::MatrixXd state = Eigen::MatrixXd::Zero(rows.l.keyDim, rows.l.valueDim);
    for (int t = 0; t < o.tokens; ++t) {
        const DeltaRuleGate gate = deltaRuleGate(o, rows.l.valueHeads, t, rows.h);
        const Eigen::VectorXd k = rows.k(t);
        const Eigen::RowVectorXd read = k.transpose() * state;  // kᵀ S
        state.noalias() -= gate.beta * k * read;
        state *= gate.decay;
        state.noalias() += gate.beta * k * rows.v(t).transpose();
        rows.out(t) = (state.transpose() * rows.q(t)).cast<float>();
    }
}

// Value head h: its implicit attention row by row into `captured`, out's rows from them; without
// `captured`, from its state.
void deltaRuleHead(const DeltaRuleOperands& o, const DeltaRuleLayout& l, int h, float* captured) {
    const DeltaRuleHeadRows rows{o, l, h};
    if (!captured) return deltaRuleHeadByState(rows);
    const int n = o.tokens;
    RowMatrixXd u(n, l.keyDim);  // row s: u_s for the tokens seen so far
    RowMatrixXd values(n, l.valueDim);
    Eigen::VectorXd weights;
    for (int t = 0; t < n; ++t) {
        const DeltaRuleGate gate = deltaRuleGate(o, l.valueHeads, t, h);
        const Eigen::VectorXd k = rows.k(t);
        if (t > 0) {  // u_s := γ_t u_s (I − β_t k_t k_tᵀ) for every earlier s
            const Eigen::VectorXd projected = u.topRows(t) * k;
            u.topRows(t) -= gate.beta * projected * k.transpose();
            u.topRows(t) *= gate.decay;
        }
        u.row(t) = gate.beta * k.transpose();
        values.row(t) = rows.v(t).transpose();
        weights = u.topRows(t + 1) * rows.q(t);  // A_ts for s <= t
        rows.out(t) = (values.topRows(t + 1).transpose() * weights).cast<float>();
        float* a = captured + static_cast<size_t>(t) * n;
        for (int s = 0; s < n; ++s) a[s] = s <= t ? static_cast<float>(weights[s]) : 0.0f;
    }
}

}  // namespace

void cpuGatedDeltaRule(ThreadPool& pool, const DeltaRuleOperands& operands,
                       const DeltaRuleLayout& layout, const AttentionCapture* capture) {
    pool.parallelFor(layout.valueHeads, [&](int, int first, int last) {
        for (int h = first; h < last; ++h) {
            float* captured = capture && h < static_cast<int>(capture->probabilities.size())
                                  ? capture->probabilities[h]
                                  : nullptr;
            deltaRuleHead(operands, layout, h, captured);
        }
    });
}

namespace {

// Head h: M = (C_g B_gᵀ) ∘ L with L_ts = exp(cum_t − cum_s) Δ_s, cum_t = Σ_{r≤t} Δ_r A.
void stateSpaceHead(const StateSpaceOperands& o, const StateSpaceLayout& l, int h,
                    float* captured) {
    const int n = o.tokens, p = l.headDim, width = l.stateDim;
    const int group = h / (l.heads / l.groups);
    using Strided =
        Eigen::Map<const Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>, 0,
                   Eigen::OuterStride<>>;
    const Strided c(o.C + group * width, n, width, Eigen::OuterStride<>(l.groups * width));
    const Strided b(o.B + group * width, n, width, Eigen::OuterStride<>(l.groups * width));
    const Strided x(o.x + h * p, n, p, Eigen::OuterStride<>(l.heads * p));
    const double rate = -std::exp(static_cast<double>(o.aLog[h]));
    std::vector<double> delta(n), cumulative(n);
    double sum = 0.0;
    for (int t = 0; t < n; ++t) {
        const double raw =
            softplus(static_cast<double>(o.dt[static_cast<size_t>(t) * l.heads + h]) + o.dtBias[h]);
        delta[t] = std::clamp(raw, static_cast<double>(l.dtMin), static_cast<double>(l.dtMax));
        sum += delta[t] * rate;
        cumulative[t] = sum;
    }
    if (!captured) {  // no map wanted: the state H (p x N), linear in the tokens
        // H_t = exp(Δ_t A) H_{t−1} + Δ_t x_t B_tᵀ and y_t = H_t C_t + D x_t: Σ_s M_ts x_s summed
        // the other way round.
        Eigen::MatrixXd state = Eigen::MatrixXd::Zero(p, width);
        for (int t = 0; t < n; ++t) {
            const Eigen::VectorXd xt = x.row(t).transpose().cast<double>();
            state *= std::exp(delta[t] * rate);
            state.noalias() += delta[t] * xt * b.row(t).cast<double>();
            const Eigen::VectorXd y =
                state * c.row(t).transpose().cast<double>() + static_cast<double>(o.D[h]) * xt;
            Eigen::Map<Eigen::VectorXf>(o.out + static_cast<size_t>(t) * l.heads * p + h * p, p) =
                y.cast<float>();
        }
        return;
    }
    RowMatrixXd m = c.cast<double>() * b.cast<double>().transpose();
    for (int t = 0; t < n; ++t)
        for (int s = 0; s < n; ++s)
            m(t, s) = s <= t ? m(t, s) * std::exp(cumulative[t] - cumulative[s]) * delta[s] : 0.0;
    const RowMatrixXd values = x.cast<double>();
    const RowMatrixXd y = m * values + static_cast<double>(o.D[h]) * values;
    for (int t = 0; t < n; ++t)
        Eigen::Map<Eigen::VectorXf>(o.out + static_cast<size_t>(t) * l.heads * p + h * p, p) =
            y.row(t).transpose().cast<float>();
    Eigen::Map<Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>(
        captured, n, n) = m.cast<float>();
}

}  // namespace

void cpuStateSpace(ThreadPool& pool, const StateSpaceOperands& operands,
                   const StateSpaceLayout& layout, const AttentionCapture* capture) {
    pool.parallelFor(layout.heads, [&](int, int first, int last) {
        for (int h = first; h < last; ++h) {
            float* captured = capture && h < static_cast<int>(capture->probabilities.size())
                                  ? capture->probabilities[h]
                                  : nullptr;
            stateSpaceHead(operands, layout, h, captured);
        }
    });
}

}  // namespace qkv
