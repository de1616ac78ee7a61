#pragma once
// Matrix-level metrics in double precision (DESIGN.md "Analysis definitions").
#include <Eigen/Core>
#include <vector>

namespace qkv {

// s(M) = (|M_s|^2 - |M_a|^2) / |M|^2 with M_s = (M + M^T)/2, M_a = (M - M^T)/2 (Frobenius):
// 1 symmetric, -1 skew-symmetric, about 0 for a random matrix; 0 for the zero matrix.
double symmetryScore(const Eigen::Ref<const Eigen::MatrixXd>& m);

// The same s(A B^T) for a product given by its factors A, B (both d x k), from k x k products
// only: <M, M^T> = tr((B^T A)^2) and |M|^2 = tr((A^T A)(B^T B)).
double productSymmetryScore(const Eigen::Ref<const Eigen::MatrixXd>& a,
                            const Eigen::Ref<const Eigen::MatrixXd>& b);

struct ProductSpectrum {
    std::vector<double> singularValues;  // of A B^T, descending, k values
    int rank = 0;                        // singular values above a relative tolerance
    double eigenPositivity = 0;          // sum Re(lambda) / sum |lambda| over nonzero eigenvalues
};
// Spectrum of A B^T via thin QR of each factor (A = Qa Ra, B = Qb Rb): its singular values are
// those of Ra Rb^T (k x k); its nonzero eigenvalues are those of B^T A (k x k).
ProductSpectrum productSpectrum(const Eigen::Ref<const Eigen::MatrixXd>& a,
                                const Eigen::Ref<const Eigen::MatrixXd>& b);

// Mean cos^2 of the principal angles between the column spaces of A and B (d x k each), in
// [0, 1]; about k/d for random matrices, 1 for the same space.
double subspaceSimilarity(const Eigen::Ref<const Eigen::MatrixXd>& a,
                          const Eigen::Ref<const Eigen::MatrixXd>& b);

}  // namespace qkv
