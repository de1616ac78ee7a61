#include "core/analysis/lapack_spectra.h"

#include <algorithm>
#include <string>
#include <vector>

#include "core/util/error.h"

extern "C" {
// LAPACK's Fortran interface (32-bit integers, as Debian's OpenBLAS is built).
void dgeev_(const char* jobvl, const char* jobvr, const int* n, double* a, const int* lda,
            double* wr, double* wi, double* vl, const int* ldvl, double* vr, const int* ldvr,
            double* work, const int* lwork, int* info);
void dgesdd_(const char* jobz, const int* m, const int* n, double* a, const int* lda, double* s,
             double* u, const int* ldu, double* vt, const int* ldvt, double* work, const int* lwork,
             int* iwork, int* info);
}

namespace qkv {
namespace {

void check(int info, const char* what) {
    if (info > 0) throw Error(std::string(what) + " did not converge");
    if (info < 0)  // an argument LAPACK refused: a bug here, not bad input
        throw Error(std::string(what) + ": LAPACK refused argument " + std::to_string(-info));
}

int toInt(Eigen::Index n) { return static_cast<int>(n); }

}  // namespace

Eigen::VectorXcd eigenvaluesOf(Eigen::MatrixXd m, const char* what) {
    if (m.rows() != m.cols()) throw Error(std::string(what) + ": not a square matrix");
    const int n = toInt(m.rows());
    if (n == 0) return {};
    Eigen::VectorXd real(n), imaginary(n);
    const int one = 1;
    int info = 0, query = -1;
    double size = 0;
    dgeev_("N", "N", &n, m.data(), &n, real.data(), imaginary.data(), nullptr, &one, nullptr, &one,
           &size, &query, &info);
    check(info, what);
    int lwork = static_cast<int>(size);
    std::vector<double> work(static_cast<std::size_t>(lwork));
    dgeev_("N", "N", &n, m.data(), &n, real.data(), imaginary.data(), nullptr, &one, nullptr, &one,
           work.data(), &lwork, &info);
    check(info, what);
    Eigen::VectorXcd values(n);
    for (int i = 0; i < n; ++i) values(i) = {real(i), imaginary(i)};
    return values;
}

Eigen::VectorXd singularValuesOf(Eigen::MatrixXd m, const char* what) {
    const int rows = toInt(m.rows()), cols = toInt(m.cols());
    const int count = std::min(rows, cols);
    if (count == 0) return {};
    Eigen::VectorXd values(count);
    std::vector<int> iwork(8 * static_cast<std::size_t>(count));
    const int one = 1;
    int info = 0, query = -1;
    double size = 0;
    dgesdd_("N", &rows, &cols, m.data(), &rows, values.data(), nullptr, &one, nullptr, &one, &size,
            &query, iwork.data(), &info);
    check(info, what);
    int lwork = static_cast<int>(size);
    std::vector<double> work(static_cast<std::size_t>(lwork));
    dgesdd_("N", &rows, &cols, m.data(), &rows, values.data(), nullptr, &one, nullptr, &one,
            work.data(), &lwork, iwork.data(), &info);
    check(info, what);
    return values;
}

}  // namespace qkv
