#pragma once
// What one head computes for a sentence, taken apart from its trace: one row of the heatmap as
// the elementwise products q_i ∘ k_j whose sums are the scores (bertviz's neuron view, for every
// architecture), the queries and keys in one plane (AttentionViz), and how much the head writes
// at and from each token through its OV circuit.
#include <Eigen/Core>
#include <vector>

#include "core/analysis/head_metrics.h"
#include "core/model/architecture.h"
#include "core/model/attention_trace.h"
#include "core/model/w_configuration.h"

namespace qkv {

// c in S = c · q kᵀ: 1/√d_k unless the family sets its own (Gemma-2, T5's 1), and 1 when the
// configuration applies the scale after the softmax.
double scoreScale(const Architecture& c, const WConfiguration& config);

// Row `query` of a head's attention decomposed. The captured score S_ij is c · q_i·k_j after the
// family's soft-cap (T5's position bias is added after the capture, as in Hugging Face's
// outputs), and A_ij its masked softmax.
struct NeuronRow {
    Eigen::VectorXd query;          // q_i, d_k
    Eigen::MatrixXd keys;           // k_j, keys x d_k
    Eigen::MatrixXd products;       // q_i ∘ k_j, keys x d_k: row j sums to q_i · k_j
    Eigen::VectorXd dots;           // q_i · k_j
    Eigen::VectorXd scaled;         // c · q_i · k_j
    Eigen::VectorXd scores;         // S_ij as captured (empty when the head's scores were not)
    Eigen::VectorXd probabilities;  // A_ij
};
// Throws qkv::Error outside the trace or for a head it did not capture.
NeuronRow neuronRow(const AttentionTrace& trace, int layer, int head, int query, double scale);

// One sentence's queries and keys of a head, with each query's most attended key.
struct HeadSample {
    Eigen::MatrixXd queries;    // tokens x d_k
    Eigen::MatrixXd keys;       // key tokens x d_k
    std::vector<int> attended;  // per query, argmax_j A_ij
};
HeadSample headSample(const AttentionTrace& trace, int layer, int head);

// The head's queries and keys in one plane: the first two principal axes of their union (rows
// centred on the union's mean), over one sentence or pooled over several (AttentionViz's view
// of a head across a corpus). Rows keep the samples' order: sample 0's queries first.
struct QueryKeyPlane {
    Eigen::MatrixX2d queries;                 // all samples' queries x 2
    Eigen::MatrixX2d keys;                    // all samples' keys x 2
    std::vector<int> attended;                // per query, its most attended key as a row of `keys`
    std::vector<int> queryCounts, keyCounts;  // rows per sample
    double explained = 0;  // fraction of the union's variance the plane holds, in [0, 1]
};
QueryKeyPlane queryKeyPlane(const AttentionTrace& trace, int layer, int head);
QueryKeyPlane queryKeyPlane(const std::vector<HeadSample>& samples);  // at least one

// Through the head's output rows W_O^h (d_k x d_model): `written` per query i, ‖(A V W_O^h)_i‖,
// what the head adds to the residual stream there; `source` per key j, ‖v_j W_O^h‖ times the
// attention it gets in total (Σ_i A_ij), which tokens the head writes from (Kobayashi et al.
// 2020's norm-based view).
struct HeadOutputNorms {
    std::vector<double> written;
    std::vector<double> source;
};
HeadOutputNorms headOutputNorms(const AttentionTrace& trace, int layer, int head,
                                const Eigen::MatrixXd& outputRows);
// The same with the model's output rows of that head (head_metrics.h headOutputRows).
HeadOutputNorms headOutputNorms(const Model& model, const AttentionTrace& trace, int layer,
                                int head, AttentionKind kind);

}  // namespace qkv
