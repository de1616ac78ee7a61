#include "tests/support/textbook.h"

#include <gtest/gtest.h>

#include <cmath>

namespace qkv::test::textbook {

using Eigen::MatrixXd;
using Eigen::RowVectorXd;

MatrixXd matrix(const Tensors& t, const std::string& name) {
    const FixtureTensor& f = t.at(name);
    MatrixXd m(f.shape[0], f.values.size() / f.shape[0]);
    for (Eigen::Index r = 0; r < m.rows(); ++r)
        for (Eigen::Index c = 0; c < m.cols(); ++c) m(r, c) = f.values[r * m.cols() + c];
    return m;
}

RowVectorXd row(const Tensors& t, const std::string& name) {
    const FixtureTensor& f = t.at(name);
    RowVectorXd v(f.values.size());
    for (Eigen::Index i = 0; i < v.size(); ++i) v(i) = f.values[i];
    return v;
}

MatrixXd linear(const Tensors& t, const std::string& module, const MatrixXd& x, bool bias) {
    MatrixXd y = x * matrix(t, module + ".weight").transpose();
    if (bias) y.rowwise() += row(t, module + ".bias");
    return y;
}

MatrixXd layerNorm(const Tensors& t, const std::string& module, const MatrixXd& x) {
    MatrixXd y(x.rows(), x.cols());
    for (Eigen::Index i = 0; i < x.rows(); ++i) {
        const double mean = x.row(i).mean();
        const double var = (x.row(i).array() - mean).square().mean();
        y.row(i) = ((x.row(i).array() - mean) / std::sqrt(var + 1e-5)).matrix();
    }
    return (y.array().rowwise() * row(t, module + ".weight").array()).rowwise() +
           row(t, module + ".bias").array();
}

Attention attend(const Tensors& t, const std::string& p, const MatrixXd& queries,
                 const MatrixXd& keysValues, int heads, bool causal) {
    const MatrixXd q = linear(t, p + "q_proj", queries), k = linear(t, p + "k_proj", keysValues),
                   v = linear(t, p + "v_proj", keysValues);
    const int dk = static_cast<int>(q.cols()) / heads;
    MatrixXd merged(q.rows(), q.cols());
    Attention result;
    for (int h = 0; h < heads; ++h) {
        MatrixXd a = q.middleCols(h * dk, dk) * k.middleCols(h * dk, dk).transpose() /
                     std::sqrt(static_cast<double>(dk));
        for (Eigen::Index i = 0; i < a.rows(); ++i) {
            const Eigen::Index visible = causal ? i + 1 : a.cols();
            const double m = a.row(i).head(visible).maxCoeff();
            for (Eigen::Index j = 0; j < a.cols(); ++j)
                a(i, j) = j < visible ? std::exp(a(i, j) - m) : 0.0;
            a.row(i) /= a.row(i).sum();
        }
        merged.middleCols(h * dk, dk) = a * v.middleCols(h * dk, dk);
        result.probabilities.push_back(a);
    }
    result.output = linear(t, p + "out_proj", merged);
    return result;
}

double gelu(double z) { return 0.5 * z * (1 + std::erf(z / std::sqrt(2.0))); }
double relu(double z) { return z > 0 ? z : 0.0; }

MatrixXd feedForward(const Tensors& t, const std::string& p, const MatrixXd& x,
                     double (*activation)(double)) {
    return linear(t, p + "fc2", linear(t, p + "fc1", x).unaryExpr(activation));
}

double maxDiff(const RowMatrixXf& actual, const MatrixXd& expected) {
    EXPECT_EQ(actual.rows(), expected.rows());
    EXPECT_EQ(actual.cols(), expected.cols());
    if (actual.rows() != expected.rows() || actual.cols() != expected.cols()) return INFINITY;
    return (actual.cast<double>() - expected).cwiseAbs().maxCoeff();
}

}  // namespace qkv::test::textbook
