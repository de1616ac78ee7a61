#pragma once
// A head's OV circuit, "the fourth matrix" (Elhage et al. 2021): W_OV = W_V^h W_O^h, d_model x
// d_model of rank at most d_k, with W_V^h the head's d_model x d_k value weight (the V slot under
// the W configuration) and W_O^h the d_k rows of the output projection that read head h. What
// the head writes into the residual stream when it attends to a token x is x W_OV.
//
// Its copying score is the eigenvalue positivity of the vocabulary circuit W_E W_OV W_U
// (vocab x vocab; W_E the token embedding, W_U the unembedding, layer norms ignored): its nonzero
// eigenvalues are those of the d_k x d_k matrix W_O^h (W_U W_E) W_V^h, so one d_model x d_model
// product W_U W_E per model serves every head. 1: attending to a token raises that token's logit
// (copying); about 0 for random weights.
#include <Eigen/Core>
#include <atomic>
#include <optional>
#include <vector>

#include "core/analysis/matrix_metrics.h"
#include "core/model/model.h"
#include "core/util/progress.h"
#include "core/util/thread_pool.h"

namespace qkv {

// W_U W_E (d_model x d_model, double), summed over blocks of the vocabulary on the pool's
// threads (the embedding is never converted whole); nullopt for a model without an output head.
// `progress` hears of each block done (from the pool's threads, one call at a time); `cancel`
// stops the work between blocks with qkv::Cancelled.
std::optional<Eigen::MatrixXd> vocabularyRoundTrip(const Model& model, ThreadPool& pool,
                                                   const Progress& progress = {},
                                                   const std::atomic<bool>* cancel = nullptr);

struct OvCircuit {
    std::vector<double> singularValues;  // of W_OV, descending, d_k of them
    int rank = 0;                        // at matrix_metrics.h's rank tolerance
    std::optional<double> copyingScore;  // absent without W_U W_E
};

// From the head's value factor (d_model x d_k) and output rows (d_k x d_model); `roundTripValue`
// is (W_U W_E) W_V^h (d_model x d_k), which the heads that read the same value block share, or
// null for no copying score.
OvCircuit ovCircuit(const GramFactor& value, const Eigen::Ref<const Eigen::MatrixXd>& outputRows,
                    const Eigen::MatrixXd* roundTripValue);
// The same from the value weight (d_model x d_k), the output rows (d_k x d_model) and W_U W_E,
// with (W_U W_E) W_V formed in double: the exact form the tests hold the analysis to (the
// analysis forms it in float32 once per value block, head_metrics.cpp).
OvCircuit ovCircuit(const Eigen::Ref<const Eigen::MatrixXd>& value,
                    const Eigen::Ref<const Eigen::MatrixXd>& outputRows,
                    const Eigen::MatrixXd* roundTrip);

}  // namespace qkv
