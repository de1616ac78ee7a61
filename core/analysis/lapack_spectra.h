#pragma once
// Eigenvalues and singular values of small dense matrices through LAPACK (OpenBLAS's): its
// multishift QR with early deflation and its divide-and-conquer bidiagonal SVD are two to four
// times Eigen's own at a head's 128 x 128, which an 8B model's analysis asks for thousands of
// times. Values only, no vectors. Non-convergence throws qkv::Error naming `what`.
#include <Eigen/Core>

namespace qkv {

// The eigenvalues of a square matrix, in no particular order.
Eigen::VectorXcd eigenvaluesOf(Eigen::MatrixXd m, const char* what);

// The singular values of any matrix, descending (min(rows, cols) of them).
Eigen::VectorXd singularValuesOf(Eigen::MatrixXd m, const char* what);

}  // namespace qkv
