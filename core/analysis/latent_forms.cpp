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
    LatentHeadForms f;
    // What a head's query columns multiply: the model's input, or the normed query latent.
    if (!w.queryDown.weight.empty())
        f.queryIn = toDouble(w.queryDown.weight) * gains(w.queryNorm.gamma).asDiagonal();
    f.latentIn = toDouble(w.latent.weight) * gains(w.latentNorm.gamma).asDiagonal();
    for (int h = 0; h < c.heads; ++h) {
        const int q = h * c.headDim, kv = h * (nope + dv);  // stored [nope | rope], [k | v]
        const Eigen::MatrixXd up = toDouble(w.queryUp.weight.columns(q, c.headDim));
        const Eigen::MatrixXd keyValue = toDouble(w.keyValueUp.weight.columns(kv, nope + dv));
        f.queryUp.push_back(up.leftCols(nope));
        f.queryRotaryUp.push_back(up.rightCols(rope));
        f.keyUp.push_back(keyValue.leftCols(nope));
        f.valueUp.push_back(keyValue.rightCols(dv));
    }
    f.keyRotary = toDouble(w.rotaryKey.weight);
    return f;
}

namespace {

// left · right, where an empty left factor is the identity.
Eigen::MatrixXd product(const Eigen::MatrixXd& left, const Eigen::MatrixXd& right) {
    if (left.size() == 0) return right;
    Eigen::MatrixXd out(left.rows(), right.cols());
    out.noalias() = left * right;
    return out;
}

const Eigen::MatrixXd& leftFactor(const LatentHeadForms& f, Projection projection) {
    return projection == Projection::Query ? f.queryIn : f.latentIn;
}

}  // namespace

const Eigen::MatrixXd& LatentHeadForms::own(Projection projection, int head) const {
    return projection == Projection::Query ? queryUp.at(head)
           : projection == Projection::Key ? keyUp.at(head)
                                           : valueUp.at(head);
}

Eigen::MatrixXd LatentHeadForms::form(Projection projection, int head) const {
    return product(leftFactor(*this, projection), own(projection, head));
}

Eigen::MatrixXd LatentHeadForms::queryRotary(int head) const {
    return product(queryIn, queryRotaryUp.at(head));
}

std::pair<Eigen::MatrixXd, Eigen::MatrixXd> latentLayerForm(const LatentHeadForms& f,
                                                            const WConfiguration& configuration) {
    const Projection query = configuration.sourceOf(Projection::Query),
                     key = configuration.sourceOf(Projection::Key);
    // sum_h (L_q R_q^h)(L_k R_k^h)ᵀ = L_q (sum_h R_q^h R_k^hᵀ) L_kᵀ.
    Eigen::MatrixXd inner = Eigen::MatrixXd::Zero(f.own(query, 0).rows(), f.own(key, 0).rows());
    for (int h = 0; h < static_cast<int>(f.queryUp.size()); ++h)
        inner.noalias() += f.own(query, h) * f.own(key, h).transpose();
    Eigen::MatrixXd a = product(leftFactor(f, query), inner);
    const Eigen::MatrixXd& keyLeft = leftFactor(f, key);
    // A key slot without a shared factor (W_Q^h read as the key, no query rank): the identity.
    if (keyLeft.size() == 0) return {std::move(a), Eigen::MatrixXd::Identity(a.cols(), a.cols())};
    return {std::move(a), keyLeft};
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
