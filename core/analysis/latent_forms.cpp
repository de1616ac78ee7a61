#include "core/analysis/latent_forms.h"

#include <algorithm>

#include "core/analysis/matrix_metrics.h"

namespace qkv {

LatentHeadForms latentHeadForms(const Model& model, int layer) {
    const Architecture& c = model.architecture();
    const LatentAttentionWeights& w = model.weights().layers.at(layer).latent;
    const int nope = c.latent.nopeDim, rope = c.latent.ropeDim, dv = c.valueWidth();
    auto gains = [](const VectorView& g) {
        Eigen::VectorXd v(g.size);
        for (int i = 0; i < g.size; ++i) v(i) = g[i];
        return v;
    };
    // What a head's query columns multiply: the model's input, or the normed query latent.
    const bool bottleneck = !w.queryDown.weight.empty();
    Eigen::MatrixXd queryIn;
    if (bottleneck) queryIn = toDouble(w.queryDown.weight) * gains(w.queryNorm.gamma).asDiagonal();
    const Eigen::MatrixXd latentIn =
        toDouble(w.latent.weight) * gains(w.latentNorm.gamma).asDiagonal();
    LatentHeadForms f;
    for (int h = 0; h < c.heads; ++h) {
        const int q = h * c.headDim, kv = h * (nope + dv);  // stored [nope | rope], [k | v]
        const Eigen::MatrixXd up = toDouble(w.queryUp.weight.columns(q, c.headDim));
        f.query.push_back(bottleneck ? Eigen::MatrixXd(queryIn * up.leftCols(nope))
                                     : up.leftCols(nope));
        f.queryRotary.push_back(bottleneck ? Eigen::MatrixXd(queryIn * up.rightCols(rope))
                                           : up.rightCols(rope));
        f.key.push_back(latentIn * toDouble(w.keyValueUp.weight.columns(kv, nope)));
        f.value.push_back(latentIn * toDouble(w.keyValueUp.weight.columns(kv + nope, dv)));
    }
    f.keyRotary = toDouble(w.rotaryKey.weight);
    return f;
}

int latentFormRankBound(const Architecture& c) {
    const int query = c.latent.queryRank > 0 ? c.latent.queryRank : c.dModel;
    return std::min({query, c.latent.keyValueRank, c.latent.nopeDim});
}

std::string latentFormDescription(const Architecture& c) {
    const std::string query = c.latent.queryRank > 0 ? "W_DQ diag(g_q) W_UQ^h" : "W_Q^h";
    return "latent attention: each head's form is " + query +
           " (W_DKV diag(g_kv) W_UK^h)^T, its non-rotary part (rank at most " +
           std::to_string(latentFormRankBound(c)) +
           "; the latent norms' per-token RMS factors left out); the rotary part W_QR^h W_KR^T, "
           "whose key W_KR is one for every head, is reported apart";
}

LatentParameterCount latentParameterCount(const Architecture& c) {
    const long long d = c.dModel, nope = c.latent.nopeDim, latent = c.latent.keyValueRank;
    const long long query = c.latent.queryRank > 0 ? c.latent.queryRank : 0;
    // Without a query rank, W_Q^h (d_model x nope) is the head's own.
    const long long ownQuery = query > 0 ? query * nope : d * nope;
    return {ownQuery + latent * nope, d * (query + latent)};
}

}  // namespace qkv
