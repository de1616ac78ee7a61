#include "core/analysis/matrix_metrics.h"

#include <Eigen/Eigenvalues>
#include <Eigen/QR>
#include <Eigen/SVD>
#include <algorithm>
#include <cfloat>
#include <cmath>
#include <complex>
#include <string>
#include <vector>

#include "core/util/error.h"

namespace qkv {
namespace {

std::string shape(const Eigen::Ref<const Eigen::MatrixXd>& m) {
    return std::to_string(m.rows()) + " x " + std::to_string(m.cols());
}

void requireSameShape(const Eigen::Ref<const Eigen::MatrixXd>& a,
                      const Eigen::Ref<const Eigen::MatrixXd>& b, const char* what) {
    if (a.rows() != b.rows() || a.cols() != b.cols())
        throw Error(std::string(what) + ": factors of different shapes (" + shape(a) + " and " +
                    shape(b) + ")");
}

// The symmetric k x k Gram matrix A^T A at half the cost of a general product.
Eigen::MatrixXd gram(const Eigen::Ref<const Eigen::MatrixXd>& a) {
    Eigen::MatrixXd g = Eigen::MatrixXd::Zero(a.cols(), a.cols());
    g.selfadjointView<Eigen::Lower>().rankUpdate(a.transpose());
    g.triangularView<Eigen::StrictlyUpper>() = g.transpose();
    return g;
}

// sum Re(lambda) / sum |lambda| over the eigenvalues of a square `m` larger than `cutoff` in
// magnitude; 0 when there are none. `what` names the matrix when they do not converge.
double positivity(const Eigen::Ref<const Eigen::MatrixXd>& m, double cutoff, const char* what) {
    const Eigen::EigenSolver<Eigen::MatrixXd> eigen(m, false);
    if (eigen.info() != Eigen::Success) throw Error(std::string(what) + " did not converge");
    double realSum = 0, absSum = 0;
    for (const std::complex<double>& lambda : eigen.eigenvalues()) {
        if (std::abs(lambda) <= cutoff) continue;
        realSum += lambda.real();
        absSum += std::abs(lambda);
    }
    return absSum > 0 ? realSum / absSum : 0.0;
}

double ratio(double numerator, double denominator) {
    if (denominator <= 0) return 0;
    // |<M, M^T>| <= |M|^2 holds exactly; rounding may step just outside.
    return std::clamp(numerator / denominator, -1.0, 1.0);
}

}  // namespace

Eigen::MatrixXd toDouble(const MatrixView& view) {
    if (view.isFloat32()) {
        using Stride = Eigen::Stride<Eigen::Dynamic, Eigen::Dynamic>;
        const Eigen::Map<const Eigen::MatrixXf, 0, Stride> map(
            view.floats(), view.rows, view.cols, Stride(view.colStride, view.rowStride));
        return map.cast<double>();
    }
    // A compact view (bf16, GGUF blocks, MXFP4) is widened a contiguous run at a time: a block
    // format decodes its scales once per block, not once per element.
    Eigen::MatrixXd out(view.rows, view.cols);
    std::vector<float> run;
    if (view.colStride == 1) {
        run.resize(static_cast<std::size_t>(view.cols));
        for (int r = 0; r < view.rows; ++r) {
            view.widenRun(r * view.rowStride, run.size(), run.data());
            for (int c = 0; c < view.cols; ++c) out(r, c) = run[c];
        }
    } else if (view.rowStride == 1) {
        run.resize(static_cast<std::size_t>(view.rows));
        for (int c = 0; c < view.cols; ++c) {
            view.widenRun(c * view.colStride, run.size(), run.data());
            for (int r = 0; r < view.rows; ++r) out(r, c) = run[r];
        }
    } else {
        for (int c = 0; c < view.cols; ++c)
            for (int r = 0; r < view.rows; ++r) out(r, c) = view.at(r, c);
    }
    return out;
}

double rankTolerance(Eigen::Index rows, Eigen::Index cols) {
    return static_cast<double>(std::max(rows, cols)) * FLT_EPSILON;
}

double symmetryScore(const Eigen::Ref<const Eigen::MatrixXd>& m) {
    if (m.rows() != m.cols()) throw Error("symmetry score of a non-square " + shape(m) + " matrix");
    // |M_s|^2 - |M_a|^2 = <M, M^T>.
    return ratio(m.cwiseProduct(m.transpose()).sum(), m.squaredNorm());
}

double productSymmetryScore(const Eigen::Ref<const Eigen::MatrixXd>& a,
                            const Eigen::Ref<const Eigen::MatrixXd>& b) {
    return productForm(a, b).symmetry;
}

namespace {

// (C - R) / (C + R) from the row and column norms (directionality() above).
double directionalityOfNorms(const Eigen::VectorXd& rows, const Eigen::VectorXd& cols) {
    const auto excess = [](const Eigen::VectorXd& norms) {
        const Eigen::Index n = norms.size();
        if (n < 2) return 0.0;
        const double mean = norms.mean();
        const double std = std::sqrt((norms.array() - mean).square().sum() / (n - 1));
        const double threshold = mean + 2 * std;
        return (norms.array() > threshold).select(norms.array() - threshold, 0.0).sum();
    };
    const double r = excess(rows), c = excess(cols);
    return r + c > 0 ? (c - r) / (c + r) : 0.0;
}

}  // namespace

double directionality(const Eigen::Ref<const Eigen::MatrixXd>& m) {
    if (m.rows() != m.cols()) throw Error("directionality of a non-square " + shape(m) + " matrix");
    return directionalityOfNorms(m.rowwise().norm(), m.colwise().norm().transpose());
}

double productDirectionality(const Eigen::Ref<const Eigen::MatrixXd>& a,
                             const Eigen::Ref<const Eigen::MatrixXd>& b) {
    return productForm(a, b).directionality;
}

namespace {

// The norms of the rows of A B^T from G = B^T B: sqrt(a_i G a_i^T). Rounding can leave a tiny
// negative square where a norm is 0.
Eigen::VectorXd productRowNorms(const Eigen::Ref<const Eigen::MatrixXd>& a,
                                const Eigen::MatrixXd& otherGram) {
    return (a * otherGram).cwiseProduct(a).rowwise().sum().cwiseMax(0.0).cwiseSqrt();
}

}  // namespace

ProductForm productForm(const Eigen::Ref<const Eigen::MatrixXd>& a,
                        const Eigen::Ref<const Eigen::MatrixXd>& b) {
    ThreadPool callingThread(1);  // no workers: the products run here, one after another
    return productForm(a, b, callingThread);
}

ProductForm productForm(const Eigen::Ref<const Eigen::MatrixXd>& a,
                        const Eigen::Ref<const Eigen::MatrixXd>& b, ThreadPool& pool) {
    requireSameShape(a, b, "product of factors");
    if (2 * a.cols() > a.rows()) {
        const Eigen::MatrixXd m = a * b.transpose();
        return {symmetryScore(m), directionality(m)};
    }
    Eigen::MatrixXd c, ga, gb;
    pool.parallelFor(3, [&](int, int first, int last) {
        for (int i = first; i < last; ++i) {
            if (i == 0) c = b.transpose() * a;
            if (i == 1) ga = gram(a);
            if (i == 2) gb = gram(b);
        }
    });
    Eigen::VectorXd rows, cols;
    pool.parallelFor(2, [&](int, int first, int last) {
        for (int i = first; i < last; ++i) {
            if (i == 0) rows = productRowNorms(a, gb);
            if (i == 1) cols = productRowNorms(b, ga);
        }
    });
    return {ratio(c.cwiseProduct(c.transpose()).sum(), ga.cwiseProduct(gb).sum()),
            directionalityOfNorms(rows, cols)};
}

double eigenPositivity(const Eigen::Ref<const Eigen::MatrixXd>& m) {
    if (m.rows() != m.cols()) throw Error("eigenvalues of a non-square " + shape(m) + " matrix");
    // Zero eigenvalues add nothing to either sum.
    return positivity(m, 0.0, "eigenvalues");
}

FactorBasis::FactorBasis(const Eigen::Ref<const Eigen::MatrixXd>& a) : m_matrix(a) {
    const Eigen::Index d = a.rows();
    const Eigen::Index r = std::min(d, a.cols());
    const Eigen::HouseholderQR<Eigen::MatrixXd> qr(m_matrix);
    m_r = qr.matrixQR().topRows(r).triangularView<Eigen::Upper>();
    // With R R^T = U S^2 U^T (eigenvalues ascending) the columns of Q U whose S passes the
    // tolerance span the numerical column space. The symmetric eigensolver is several times
    // faster than an SVD of R, and squaring loses nothing that matters: the tolerance squared
    // (>= 1e-14) stays far above the rounding of S^2 (1e-16 of the largest).
    const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eigen(m_r * m_r.transpose());
    const Eigen::VectorXd& squares = eigen.eigenvalues();
    const double cutoff = r > 0 ? squares(r - 1) * std::pow(rankTolerance(d, a.cols()), 2) : 0.0;
    const Eigen::Index rank = (squares.array() > cutoff).count();
    m_basis = Eigen::MatrixXd::Zero(d, rank);
    m_basis.topRows(r) = eigen.eigenvectors().rightCols(rank);
    // Without columns there is nothing to rotate (Eigen would offset the empty matrix's null
    // data pointer, which UndefinedBehaviorSanitizer reports).
    if (rank > 0) m_basis.applyOnTheLeft(qr.householderQ());
}

ProductSpectrum productSpectrum(const FactorBasis& a, const FactorBasis& b) {
    requireSameShape(a.matrix(), b.matrix(), "product spectrum");
    const Eigen::Index d = a.matrix().rows();
    const Eigen::Index k = a.matrix().cols();
    ProductSpectrum out;
    const Eigen::BDCSVD<Eigen::MatrixXd> svd(a.r() * b.r().transpose());
    const Eigen::VectorXd& sigma = svd.singularValues();
    out.singularValues.assign(sigma.data(), sigma.data() + sigma.size());
    if (sigma.size() == 0 || sigma(0) == 0) return out;

    const double cutoff = sigma(0) * rankTolerance(d, k);
    out.rank = static_cast<int>((sigma.array() > cutoff).count());
    // |lambda| <= sigma_max for every eigenvalue, so the same cutoff tells the zero ones.
    out.eigenPositivity = positivity(b.matrix().transpose() * a.matrix(), cutoff,
                                     "product spectrum: eigenvalues of B^T A");
    return out;
}

ProductSpectrum productSpectrum(const Eigen::Ref<const Eigen::MatrixXd>& a,
                                const Eigen::Ref<const Eigen::MatrixXd>& b) {
    requireSameShape(a, b, "product spectrum");  // before the decompositions
    return productSpectrum(FactorBasis(a), FactorBasis(b));
}

double subspaceSimilarity(const FactorBasis& a, const FactorBasis& b) {
    if (a.matrix().rows() != b.matrix().rows())
        throw Error("subspace similarity of " + shape(a.matrix()) + " and " + shape(b.matrix()) +
                    " matrices");
    const int angles = std::min(a.rank(), b.rank());
    if (angles == 0) return 0;
    const double cosSquares = (a.basis().transpose() * b.basis()).squaredNorm();
    return std::clamp(cosSquares / angles, 0.0, 1.0);
}

double subspaceSimilarity(const Eigen::Ref<const Eigen::MatrixXd>& a,
                          const Eigen::Ref<const Eigen::MatrixXd>& b) {
    return subspaceSimilarity(FactorBasis(a), FactorBasis(b));
}

}  // namespace qkv
