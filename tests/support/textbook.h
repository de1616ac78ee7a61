#pragma once
// A textbook double-precision forward, built from the Hugging Face module names of a fixture's
// tensors: what the tests of families without a Hugging Face reference in ../shared (BART,
// OPT-350m) check the forward against.
#include <Eigen/Dense>
#include <map>
#include <string>
#include <vector>

#include "core/model/attention_trace.h"
#include "tests/support/fixture_writer.h"

namespace qkv::test::textbook {

using Tensors = std::map<std::string, FixtureTensor>;

Eigen::MatrixXd matrix(const Tensors& t, const std::string& name);  // as stored, [rows, ...]
Eigen::RowVectorXd row(const Tensors& t, const std::string& name);
// nn.Linear: x · weightᵀ (+ bias when `bias`), weight stored [out, in].
Eigen::MatrixXd linear(const Tensors& t, const std::string& module, const Eigen::MatrixXd& x,
                       bool bias = true);
Eigen::MatrixXd layerNorm(const Tensors& t, const std::string& module, const Eigen::MatrixXd& x);

struct Attention {
    Eigen::MatrixXd output;
    std::vector<Eigen::MatrixXd> probabilities;  // per head, queries x keys
};
// BART/OPT attention under `prefix` (q_proj, k_proj, v_proj, out_proj, all with biases): q
// scaled by d_k^-1/2 before q·k, causal when asked.
Attention attend(const Tensors& t, const std::string& prefix, const Eigen::MatrixXd& queries,
                 const Eigen::MatrixXd& keysValues, int heads, bool causal);

double gelu(double z);  // exact, erf
double relu(double z);
// fc2(activation(fc1 x)) under `prefix`.
Eigen::MatrixXd feedForward(const Tensors& t, const std::string& prefix, const Eigen::MatrixXd& x,
                            double (*activation)(double));

// The largest absolute difference; infinity (and a test failure) when the shapes differ.
double maxDiff(const RowMatrixXf& actual, const Eigen::MatrixXd& expected);

}  // namespace qkv::test::textbook
