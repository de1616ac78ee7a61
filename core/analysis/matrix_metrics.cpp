#include "core/analysis/matrix_metrics.h"

#include <Eigen/Cholesky>
#include <Eigen/Eigenvalues>
#include <Eigen/QR>
#include <algorithm>
#include <cfloat>
#include <cmath>
#include <complex>
#include <string>
#include <vector>

#include "core/analysis/lapack_spectra.h"
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
Eigen::MatrixXd gramOf(const Eigen::Ref<const Eigen::MatrixXd>& a) {
    Eigen::MatrixXd g = Eigen::MatrixXd::Zero(a.cols(), a.cols());
    g.selfadjointView<Eigen::Lower>().rankUpdate(a.transpose());
    g.triangularView<Eigen::StrictlyUpper>() = g.transpose();
    return g;
}

// sum Re(lambda) / sum |lambda| over the eigenvalues of a square `m` larger than `cutoff` in
// magnitude; 0 when there are none. `what` names the matrix when they do not converge.
double positivity(const Eigen::Ref<const Eigen::MatrixXd>& m, double cutoff, const char* what) {
    double realSum = 0, absSum = 0;
    for (const std::complex<double>& lambda : eigenvaluesOf(m, what)) {
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

// The norms of the rows of A B^T from G = B^T B: sqrt(a_i G a_i^T). Where G = L L^T (positive
// definite: B has full column rank) they are the row norms of A L, a triangular product at half
// the cost of A G; otherwise A G, where rounding can leave a tiny negative square for a norm of 0.
Eigen::VectorXd productRowNorms(const Eigen::Ref<const Eigen::MatrixXd>& a,
                                const Eigen::MatrixXd& otherGram) {
    Eigen::MatrixXd product(a.rows(), otherGram.cols());
    const Eigen::LLT<Eigen::MatrixXd> cholesky(otherGram);
    if (cholesky.info() == Eigen::Success) {
        product.noalias() = a * cholesky.matrixL();
        return product.rowwise().norm();
    }
    product.noalias() = a * otherGram;
    return product.cwiseProduct(a).rowwise().sum().cwiseMax(0.0).cwiseSqrt();
}

// The norms of the rows of A B^T from B's R: those of A Rb^T, as B = U Rb with orthonormal U.
Eigen::VectorXd productRowNorms(const Eigen::MatrixXd& a, const GramFactor& other) {
    Eigen::MatrixXd aRt(a.rows(), other.r().rows());
    aRt.noalias() = a * other.r().transpose();
    return aRt.rowwise().norm();
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
            if (i == 1) ga = gramOf(a);
            if (i == 2) gb = gramOf(b);
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

ProductForm productForm(const GramFactor& a, const GramFactor& b, const Eigen::MatrixXd& bTa) {
    requireSameShape(a.matrix(), b.matrix(), "product of factors");
    return {ratio(bTa.cwiseProduct(bTa.transpose()).sum(), a.gram().cwiseProduct(b.gram()).sum()),
            directionalityOfNorms(productRowNorms(a.matrix(), b), productRowNorms(b.matrix(), a))};
}

GramFactor::GramFactor(const Eigen::Ref<const Eigen::MatrixXd>& a)
    : m_matrix(a), m_gram(gramOf(a)) {
    const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eigen(m_gram);
    // Rounding can leave a tiny negative eigenvalue where A is rank-deficient.
    m_squares = eigen.eigenvalues().cwiseMax(0.0);
    m_vectors = eigen.eigenvectors();
    const Eigen::Index rows = std::min(a.rows(), a.cols());
    m_r = m_squares.tail(rows).cwiseSqrt().asDiagonal() * m_vectors.rightCols(rows).transpose();
}

FactorBasis::FactorBasis(const Eigen::Ref<const Eigen::MatrixXd>& a) : GramFactor(a) {
    const Eigen::Index k = m_squares.size();
    const double cutoff =
        k > 0 ? m_squares(k - 1) * std::pow(rankTolerance(a.rows(), a.cols()), 2) : 0.0;
    const Eigen::Index rank = (m_squares.array() > cutoff).count();
    // Without columns there is nothing to multiply (an empty product would hand the BLAS a null
    // pointer, which UndefinedBehaviorSanitizer reports).
    if (rank == 0) {
        m_basis.resize(a.rows(), 0);
        return;
    }
    const Eigen::MatrixXd scaled =
        m_vectors.rightCols(rank) * m_squares.tail(rank).cwiseSqrt().cwiseInverse().asDiagonal();
    m_basis.noalias() = m_matrix * scaled;
}

namespace {

// The singular values of A B^T with its rank, and the cutoff below which they count as zero.
ProductSpectrum singularValuesOfProduct(const GramFactor& a, const GramFactor& b, double& cutoff) {
    requireSameShape(a.matrix(), b.matrix(), "product spectrum");
    ProductSpectrum out;
    const Eigen::VectorXd sigma =
        singularValuesOf(a.r() * b.r().transpose(), "product spectrum: singular values");
    out.singularValues.assign(sigma.data(), sigma.data() + sigma.size());
    cutoff = sigma.size() > 0 ? sigma(0) * rankTolerance(a.matrix().rows(), a.matrix().cols()) : 0;
    if (sigma.size() > 0 && sigma(0) > 0)
        out.rank = static_cast<int>((sigma.array() > cutoff).count());
    return out;
}

}  // namespace

ProductSpectrum productSpectrum(const GramFactor& a, const GramFactor& b,
                                const Eigen::MatrixXd& bTa) {
    double cutoff = 0;
    ProductSpectrum out = singularValuesOfProduct(a, b, cutoff);
    // |lambda| <= sigma_max for every eigenvalue, so the same cutoff tells the zero ones.
    if (out.rank > 0)
        out.eigenPositivity = positivity(bTa, cutoff, "product spectrum: eigenvalues of B^T A");
    return out;
}

ProductSpectrum productSpectrum(const GramFactor& a, const GramFactor& b) {
    requireSameShape(a.matrix(), b.matrix(), "product spectrum");
    return productSpectrum(a, b, b.matrix().transpose() * a.matrix());
}

ProductSpectrum productSpectrum(const Eigen::Ref<const Eigen::MatrixXd>& a,
                                const Eigen::Ref<const Eigen::MatrixXd>& b) {
    requireSameShape(a, b, "product spectrum");  // before the decompositions
    return productSpectrum(GramFactor(a), GramFactor(b));
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
