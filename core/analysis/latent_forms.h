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
#include "core/model/w_configuration.h"

namespace qkv {

// Each head's forms as a left factor every head shares times the head's own right factor, the
// d_model-wide products computed when asked (a layer of DeepSeek-V3 holds 3.3 GB of them).
struct LatentHeadForms {
    Eigen::MatrixXd queryIn;   // W_DQ diag(g_q); empty without a query rank (the identity)
    Eigen::MatrixXd latentIn;  // W_DKV diag(g_kv)
    // Per head: W_UQ^h's non-rotary and rotary columns (W_Q^h's without a query rank), W_UK^h,
    // W_UV^h.
    std::vector<Eigen::MatrixXd> queryUp, queryRotaryUp, keyUp, valueUp;
    Eigen::MatrixXd keyRotary;  // every head's: d_model x qk_rope_head_dim

    // Head h's own right factor of a projection: queryUp[h], keyUp[h] or valueUp[h].
    const Eigen::MatrixXd& own(Projection projection, int head) const;
    // Head h's form of a projection (d_model x its width): queryIn · queryUp[h] for the query,
    // latentIn · keyUp[h] for the key, latentIn · valueUp[h] for the value.
    Eigen::MatrixXd form(Projection projection, int head) const;
    Eigen::MatrixXd queryRotary(int head) const;  // d_model x qk_rope_head_dim
};

// The factors of every head of `layer` (a model with latent attention).
LatentHeadForms latentHeadForms(const Model& model, int layer);

// Factors A, B of the layer's summed form sum_h W_Q^h W_K^hᵀ = A Bᵀ, the slots read from the
// projections `configuration` names: through the shared left factors, B is W_DKV diag(g_kv) or
// W_DQ diag(g_q) (latent-wide: 512 for DeepSeek-V3) instead of every head's key side by side
// (heads x nope wide: 16,384), so the layer's metrics cost what one head's do.
std::pair<Eigen::MatrixXd, Eigen::MatrixXd> latentLayerForm(const LatentHeadForms& forms,
                                                            const WConfiguration& configuration);

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
