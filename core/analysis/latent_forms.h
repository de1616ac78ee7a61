#pragma once
// Latent attention's heads (DeepSeek, Architecture::latent) as the weight metrics read them: each
// head's projections over the model's input, which the model factors through shared latents.
// Head h's non-rotary query is W_DQ diag(g_q) W_UQ^h (W_Q^h without a query rank), its key
// W_DKV diag(g_kv) W_UK^h and its value W_DKV diag(g_kv) W_UV^h, with g the latent norms'
// gains; its bilinear form W_Q^h W_K^hᵀ has rank at most min(query rank, latent rank, its
// width). The rotary part is separate: its key W_KR is one for every head. The latents' RMS
// norms divide each token's query and key by positive numbers: they scale the head's scores,
// not the form's symmetry or rank (as QK-norm's do, head_metrics.h).
#include <Eigen/Core>
#include <string>
#include <vector>

#include "core/model/model.h"

namespace qkv {

struct LatentHeadForms {
    std::vector<Eigen::MatrixXd> query, key;   // per head: d_model x qk_nope_head_dim
    std::vector<Eigen::MatrixXd> value;        // per head: d_model x v_head_dim
    std::vector<Eigen::MatrixXd> queryRotary;  // per head: d_model x qk_rope_head_dim
    Eigen::MatrixXd keyRotary;                 // every head's: d_model x qk_rope_head_dim
};

// The forms of every head of `layer` (a model with latent attention).
LatentHeadForms latentHeadForms(const Model& model, int layer);

// The most the non-rotary form's rank can be: min(query rank (or d_model), latent rank, width).
int latentFormRankBound(const Architecture& c);

// Parameters that make one head's non-rotary form: its own W_UQ^h and W_UK^h, and the shared
// W_DQ and W_DKV every head reads.
struct LatentParameterCount {
    long long perHead = 0;
    long long shared = 0;
};
LatentParameterCount latentParameterCount(const Architecture& c);

// One line for reports: which form the metrics describe, and its rank bound.
std::string latentFormDescription(const Architecture& c);

}  // namespace qkv
