#pragma once
// Matrix-level metrics in double precision (DESIGN.md "Analysis definitions"). A product A B^T of
// two d x k factors is analysed from k x k pieces only: nothing d x d is ever decomposed.
//
// Numerical rank: a singular value counts as zero when sigma <= sigma_max * max(d, k) * FLT_EPSILON
// (about 1.2e-7). The analysed weights are float32, so they carry a relative error of FLT_EPSILON
// per entry; this is numpy.linalg.matrix_rank's default for float32 data. The double-precision
// arithmetic here adds errors near 1e-16 * sigma_max, far below it.
//
// Dimension mismatches throw qkv::Error.
#include <Eigen/Core>
#include <vector>

#include "core/backend/matrix_view.h"
#include "core/util/thread_pool.h"

namespace qkv {

// A weight view, in whatever type it is stored, as the double matrix every metric works on.
Eigen::MatrixXd toDouble(const MatrixView& view);

// The relative singular-value tolerance above for a d x k matrix.
double rankTolerance(Eigen::Index rows, Eigen::Index cols);

// s(M) = (|M_s|^2 - |M_a|^2) / |M|^2 with M_s = (M + M^T)/2, M_a = (M - M^T)/2 (Frobenius):
// 1 symmetric, -1 skew-symmetric, about 0 for a random matrix; 0 for the zero matrix.
double symmetryScore(const Eigen::Ref<const Eigen::MatrixXd>& m);

// The same s(A B^T) for a product given by its factors A, B (both d x k): <M, M^T> =
// tr((B^T A)^2) and |M|^2 = tr((A^T A)(B^T B)), k x k products costing 4 d k^2. When k > d / 2
// forming M (2 d^2 k) is cheaper and is used instead; both are GEMMs.
double productSymmetryScore(const Eigen::Ref<const Eigen::MatrixXd>& a,
                            const Eigen::Ref<const Eigen::MatrixXd>& b);

// Directionality of a square M (Saponati et al. 2025, their utils/scores.py): with row norms r_i
// and column norms c_j, thresholds t_r = mean + 2 std of the r_i (sample std, n - 1) and t_c
// likewise, R = sum (r_i - t_r) over rows above t_r and C = sum (c_j - t_c) over columns above
// t_c: (C - R) / (C + R), 0 when both are 0. Positive when a few columns (keys) stand out, negative
// when a few rows (queries) do; 0 for a symmetric M, whose row and column norms are equal.
double directionality(const Eigen::Ref<const Eigen::MatrixXd>& m);
// The same for M = A B^T (A, B both d x k) from k x k Gram matrices: r_i^2 = a_i (B^T B) a_i^T and
// c_j^2 = b_j (A^T A) b_j^T, 4 d k^2 instead of the d^2 k of forming M (formed when k > d / 2).
double productDirectionality(const Eigen::Ref<const Eigen::MatrixXd>& a,
                             const Eigen::Ref<const Eigen::MatrixXd>& b);

// Both of M = A B^T at once, sharing the Gram matrices (the same numbers as the two above), with
// the products on the pool's threads (not from inside one of the pool's own tasks): a layer's
// W_Q W_K^T is 4096 wide on an 8B model.
struct ProductForm {
    double symmetry = 0;
    double directionality = 0;
};
ProductForm productForm(const Eigen::Ref<const Eigen::MatrixXd>& a,
                        const Eigen::Ref<const Eigen::MatrixXd>& b);
ProductForm productForm(const Eigen::Ref<const Eigen::MatrixXd>& a,
                        const Eigen::Ref<const Eigen::MatrixXd>& b, ThreadPool& pool);

// sum Re(lambda) / sum |lambda| over the eigenvalues of a square matrix; 0 when all are 0.
// 1 for a positive semi-definite matrix, 0 for a skew-symmetric one (Elhage et al. 2021 call it
// the copying score when the matrix is a head's vocabulary circuit).
double eigenPositivity(const Eigen::Ref<const Eigen::MatrixXd>& m);

// One d x k factor prepared for the metrics below from its Gram matrix: A^T A = V S^2 V^T (a
// symmetric k x k eigenproblem), so that A = U R with R = S V^T (the min(d, k) largest s_i) and U
// orthonormal on A's column space. Build it once per weight and reuse it for every pair it takes
// part in. A QR of A would give an R accurate to eps * s_max where this one's s_i carry
// eps * s_max^2 / s_i: under 1e-10 of s_max for every s_i above the rank tolerance, and at worst
// sqrt(eps) * s_max (1.5e-8 of it) below, under the float32 weights' own 6e-8 per entry. It costs
// a third of the QR: an 8B model decomposes 1,536 weights.
class GramFactor {
  public:
    explicit GramFactor(const Eigen::Ref<const Eigen::MatrixXd>& a);

    const Eigen::MatrixXd& matrix() const { return m_matrix; }  // A itself
    const Eigen::MatrixXd& gram() const { return m_gram; }      // A^T A
    const Eigen::MatrixXd& r() const { return m_r; }            // min(d, k) x k, R^T R = A^T A

  protected:
    Eigen::MatrixXd m_matrix;
    Eigen::MatrixXd m_gram;
    Eigen::MatrixXd m_r;
    Eigen::VectorXd m_squares;  // the eigenvalues S^2 of A^T A, ascending
    Eigen::MatrixXd m_vectors;  // their eigenvectors V
};

// A factor with an orthonormal basis of its column space at the rank tolerance: the columns
// A v_i / s_i whose s_i passes it (the tolerance squared, >= 1e-14, stays far above the rounding
// of s_i^2, 1e-16 of the largest). They are orthonormal to eps * s_max / s_i <= 1e-12.
class FactorBasis : public GramFactor {
  public:
    explicit FactorBasis(const Eigen::Ref<const Eigen::MatrixXd>& a);

    const Eigen::MatrixXd& basis() const { return m_basis; }  // d x rank, orthonormal columns
    int rank() const { return static_cast<int>(m_basis.cols()); }

  private:
    Eigen::MatrixXd m_basis;
};

// Both numbers of M = A B^T from the factors and the caller's B^T A (k x k): M's row norms are
// those of A Rb^T, so a head adds only 2 d k^2 to the B^T A that its spectrum shares.
ProductForm productForm(const GramFactor& a, const GramFactor& b, const Eigen::MatrixXd& bTa);

struct ProductSpectrum {
    std::vector<double> singularValues;  // of A B^T, descending, min(d, k) values
    int rank = 0;                        // singular values above the rank tolerance
    // sum Re(lambda) / sum |lambda| over the nonzero eigenvalues of A B^T (|lambda| above the
    // rank tolerance times sigma_max); 0 when there are none. 1 for a positive semi-definite
    // product such as A A^T, 0 for a skew-symmetric one.
    double eigenPositivity = 0;
};
// Spectrum of A B^T: its singular values are those of Ra Rb^T (min(d, k) square); its nonzero
// eigenvalues are those of B^T A (k x k), given as `bTa` where the caller has it.
ProductSpectrum productSpectrum(const GramFactor& a, const GramFactor& b);
ProductSpectrum productSpectrum(const GramFactor& a, const GramFactor& b,
                                const Eigen::MatrixXd& bTa);
ProductSpectrum productSpectrum(const Eigen::Ref<const Eigen::MatrixXd>& a,
                                const Eigen::Ref<const Eigen::MatrixXd>& b);

// Mean cos^2 of the principal angles between the column spaces of A and B (d rows each), in
// [0, 1]: |Ua^T Ub|_F^2 / min(ra, rb) with Ua, Ub orthonormal bases of the numerical column spaces
// (ranks ra, rb). A rank-deficient factor is thus compared through the space it actually spans:
// the mean runs over the min(ra, rb) principal angles that exist, so a space contained in the
// other scores 1. 0 when either matrix is zero. About max(ra, rb)/d (k/d) for random matrices.
double subspaceSimilarity(const FactorBasis& a, const FactorBasis& b);
double subspaceSimilarity(const Eigen::Ref<const Eigen::MatrixXd>& a,
                          const Eigen::Ref<const Eigen::MatrixXd>& b);

}  // namespace qkv
