#include "tests/gpu/backend_op_cases.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <set>
#include <sstream>
#include <utility>

#include "core/model/key_indexer.h"
#include "core/model/rotary.h"
#include "core/util/error.h"
#include "core/util/half.h"
#include "tests/gpu/gpu_test_support.h"

namespace qkv::test {
namespace {

// Tolerances, each with the reason for its size. They are the ones the hand-written tests had.

// linear: float32 sums of k products in another order (64 x 64 GEMM tiles, K split in chunks, or
// a GEMV against Eigen/OpenBLAS); the rounding grows with the outputs, so 2e-6 relative to the
// largest output.
constexpr Tolerance kLinear{Normalisation::ToLargest, 2e-6};
// layerNorm/rmsNorm: float32 means and variances summed in another order (a workgroup reduction),
// then scaled by gamma (inputs up to 3.5): 2e-6 relative to the largest output.
constexpr Tolerance kNorm{Normalisation::ToLargest, 2e-6};
// normalizeHeads: a float32 workgroup sum of squares against the CPU's double one, then one
// multiply; unit vectors have entries of at most 1: 1e-6 absolute (a few ulps of 1).
constexpr Tolerance kNormalizeHeads{Normalisation::Absolute, 1e-6};
// GELU (tanh, exact) and ReLU: the shader's float32 tanh/erf against the C library's, a few ulps
// of each value over a sweep from 1e-7 to 1e4: 1e-6 relative to each value, not to the largest
// (which would hide errors near 0).
constexpr Tolerance kActivation{Normalisation::ToEach, 1e-6};
// glu: float32 exp/tanh of |gate| up to 12, times |up| up to 2: a few ulps of 24, 1e-5 absolute.
constexpr Tolerance kGlu{Normalisation::Absolute, 1e-5};
// add: one float32 addition per element on both backends: bit-exact.
constexpr Tolerance kAdd{Normalisation::Absolute, 0.0};
// copyRows: a copy: bit-exact.
constexpr Tolerance kCopy{Normalisation::Absolute, 0.0};
// gatherRows: a copy: bit-exact. addWeightedRows: one float32 multiply and add per element,
// fused or not (values up to 2.5): 1e-6 absolute.
constexpr Tolerance kWeightedAdd{Normalisation::Absolute, 1e-6};
// rope: the same float32 cos/sin table as the CPU backend (built on the host), x cos -+ y sin
// of inputs in [-1, 1] rounded in another order: 1e-6 absolute.
constexpr Tolerance kRope{Normalisation::Absolute, 1e-6};
// attention output: sums of n probabilities times values (after d_k-term score sums) in another
// order: 2e-6 relative to the largest output.
constexpr Tolerance kAttentionOutput{Normalisation::ToLargest, 2e-6};
// captured scores: d_k products summed in another order, scaled, transformed and soft-capped:
// 2e-6 relative to the head's largest score (one case per head).
constexpr Tolerance kScores{Normalisation::ToLargest, 2e-6};
// captured probabilities lie in [0, 1]: a softmax of scores that agree to ~1e-6: 1e-6 absolute.
constexpr Tolerance kProbabilities{Normalisation::Absolute, 1e-6};
// attention without a capture: the output (O(1), inputs in [-1, 1]) with the limit its own test
// had, 1e-5 absolute; the captured cases check the same path more tightly.
constexpr Tolerance kAttentionWithoutCapture{Normalisation::Absolute, 1e-5};

// A number as a fragment of a test name: 1e-05 -> "1e_05", 0.2 -> "0_2".
std::string tag(double value) {
    std::ostringstream s;
    s << value;
    std::string text = s.str();
    for (char& c : text)
        if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
    return text;
}

std::string text(double value) {
    std::ostringstream s;
    s << value;
    return s.str();
}

const char* activationName(Activation a) {
    switch (a) {
        case Activation::GeluTanh:
            return "GeluTanh";
        case Activation::GeluExact:
            return "GeluExact";
        case Activation::Relu:
            return "Relu";
        case Activation::ReluSquared:
            return "ReluSquared";
        case Activation::Silu:
            return "Silu";
        case Activation::SwiGlu:
            return "SwiGlu";
        case Activation::GeluTanhGlu:
            return "GeluTanhGlu";
        case Activation::GeluGlu:
            return "GeluGlu";
        case Activation::ClampedSwiGlu:
            return "ClampedSwiGlu";
        case Activation::SigmoidGlu:
            return "SigmoidGlu";
        case Activation::ProductGlu:
            return "ProductGlu";
        case Activation::XIelu:
            return "XIelu";
    }
    return "";
}

// ---- linear

std::vector<float> runLinear(Backend& be, const std::vector<float>& x, int m, const MatrixView& w,
                             const std::vector<float>* bias) {
    auto xt = be.upload(x.data(), m, w.rows);
    auto wt = be.weight(w);
    auto bt = bias ? be.vector({bias->data(), w.cols}) : nullptr;
    auto y = be.create(m, w.cols);
    be.linear(*xt, *wt, bt.get(), *y);
    return download(be, *y);
}

// Odd sizes: 1 row (the GEMV path), sizes not multiples of the 64 x 64 tile or of 4, few tiles
// over a long K (split along K: 40x768x96 in 6 chunks, 20x1000x70 in 5), every weight layout
// (strided column blocks included), with and without bias.
void addLinearCases(std::vector<OpCase>& cases) {
    struct Shape {
        int m, k, n;
    };
    const Shape shapes[] = {{1, 64, 64}, {1, 48, 3}, {7, 33, 65},    {64, 64, 64},  {70, 130, 67},
                            {5, 8, 8},   {3, 5, 7},  {129, 96, 200}, {40, 768, 96}, {20, 1000, 70}};
    unsigned seed = 1;
    for (const Shape& s : shapes) {
        for (WeightLayout layout :
             {WeightLayout::RowMajor, WeightLayout::ColMajor, WeightLayout::RowMajorBlock,
              WeightLayout::ColMajorBlock, WeightLayout::TransposedRowMajor}) {
            for (bool withBias : {false, true}) {
                const unsigned xSeed = seed++, wSeed = seed++, bSeed = seed++;
                const std::string shape =
                    std::to_string(s.m) + "x" + std::to_string(s.k) + "x" + std::to_string(s.n);
                OpCase c;
                c.name =
                    "Linear_" + shape + "_" + layoutTag(layout) + (withBias ? "_Bias" : "_NoBias");
                c.description = "linear: x " + std::to_string(s.m) + "x" + std::to_string(s.k) +
                                " * W " + std::to_string(s.k) + "x" + std::to_string(s.n) + " " +
                                layoutName(layout) + (withBias ? " + bias" : ", no bias") +
                                "; seeds x " + std::to_string(xSeed) + ", W " +
                                std::to_string(wSeed) + ", bias " + std::to_string(bSeed);
                c.run = [=](Backend& be) {
                    const auto x = randomValues(static_cast<size_t>(s.m) * s.k, xSeed);
                    const auto w = randomValues(static_cast<size_t>(s.k) * s.n * 3, wSeed);
                    const auto b = randomValues(s.n, bSeed);
                    return runLinear(be, x, s.m, weightView(layout, w, s.k, s.n),
                                     withBias ? &b : nullptr);
                };
                c.tolerance = kLinear;
                cases.push_back(std::move(c));
            }
        }
    }
}

// Weights kept in their stored F16/BF16 (every layout): the CPU widens them panel by panel for
// its GEMM, the Vulkan backend on upload; the products are then float32 on both sides.
void addCompactLinearCases(std::vector<OpCase>& cases) {
    struct Shape {
        int m, k, n;
    };
    const Shape shapes[] = {{1, 64, 64}, {7, 33, 65}, {70, 130, 67}, {129, 96, 200}, {40, 768, 96}};
    unsigned seed = 5000;
    for (const Shape& s : shapes)
        for (ElementType type : {ElementType::F16, ElementType::BF16})
            for (WeightLayout layout :
                 {WeightLayout::RowMajor, WeightLayout::ColMajor, WeightLayout::ColMajorBlock,
                  WeightLayout::TransposedRowMajor}) {
                const unsigned xSeed = seed++, wSeed = seed++;
                OpCase c;
                c.name = "LinearCompact_" + std::to_string(s.m) + "x" + std::to_string(s.k) + "x" +
                         std::to_string(s.n) + "_" + elementTypeName(type) + "_" +
                         layoutTag(layout);
                c.description = "linear: x " + std::to_string(s.m) + "x" + std::to_string(s.k) +
                                " * W " + std::to_string(s.k) + "x" + std::to_string(s.n) + " " +
                                elementTypeName(type) + " " + layoutName(layout) + "; seeds x " +
                                std::to_string(xSeed) + ", W " + std::to_string(wSeed);
                c.run = [=](Backend& be) {
                    const auto x = randomValues(static_cast<size_t>(s.m) * s.k, xSeed);
                    const auto w = randomValues(static_cast<size_t>(s.k) * s.n * 3, wSeed);
                    std::vector<std::uint16_t> stored(w.size());
                    for (size_t i = 0; i < w.size(); ++i)
                        stored[i] = type == ElementType::F16 ? floatToF16(w[i]) : floatToBf16(w[i]);
                    // The float layout's view, moved onto the 16-bit copy.
                    MatrixView view = weightView(layout, w, s.k, s.n);
                    view.data = stored.data() + (view.floats() - w.data());
                    view.type = type;
                    return runLinear(be, x, s.m, view, nullptr);
                };
                c.tolerance = kLinear;
                cases.push_back(std::move(c));
            }
}

// A Linear [out, in] weight larger than one shader can address is stored in column parts and the
// linear op runs one GEMM per part: on a backend whose range is capped at 128 KiB, a 96 x 1000
// weight (375 KiB) becomes parts of 320, 320, 320 and 40 columns.
void addSplitWeightCases(std::vector<OpCase>& cases) {
    const int k = 96, n = 1000;
    for (int m : {1, 20}) {  // the GEMV and the tiled GEMM path
        for (bool withBias : {false, true}) {
            OpCase c;
            c.name = "LinearSplitWeight_" + std::to_string(m) + "x96x1000_ColMajor" +
                     (withBias ? "_Bias" : "_NoBias");
            c.description = "linear: x " + std::to_string(m) +
                            "x96 * W 96x1000 column-major [out, in]" +
                            (withBias ? " + bias" : ", no bias") +
                            ", on a Vulkan backend with maxBufferRange 128 KiB (W stored in "
                            "parts of 320, 320, 320 and 40 columns); seeds x " +
                            std::to_string(93 + m) + ", W 91, bias 92";
            c.run = [=](Backend& be) {
                const auto w = randomValues(static_cast<size_t>(k) * n, 91);
                const auto b = randomValues(n, 92);
                const auto x = randomValues(static_cast<size_t>(m) * k, 93 + m);
                return runLinear(be, x, m, MatrixView::colMajor(w.data(), k, n),
                                 withBias ? &b : nullptr);
            };
            c.tolerance = kLinear;
            c.maxBufferRange = 128 << 10;
            cases.push_back(std::move(c));
        }
    }
}

// ---- norms

// An offset makes the mean matter; with several rows the first is constant (zero variance).
std::vector<float> normInput(int rows, int cols, unsigned seed) {
    auto x = randomValues(static_cast<size_t>(rows) * cols, seed, 3.0f);
    for (float& v : x) v += 0.5f;
    if (rows > 1) std::fill(x.begin(), x.begin() + cols, 0.25f);
    return x;
}

void addNormCases(std::vector<OpCase>& cases) {
    enum class Kind { LayerNorm, LayerNormNoBeta, RmsNorm };
    unsigned seed = 100;
    for (int rows : {1, 9}) {
        for (int cols : {1, 37, 64, 300}) {
            for (float eps : {1e-5f, 1e-12f}) {
                const unsigned xSeed = seed++, gSeed = seed++, bSeed = seed++;
                for (Kind kind : {Kind::LayerNorm, Kind::LayerNormNoBeta, Kind::RmsNorm}) {
                    const char* kindName = kind == Kind::LayerNorm         ? "LayerNorm"
                                           : kind == Kind::LayerNormNoBeta ? "LayerNormNoBeta"
                                                                           : "RmsNorm";
                    OpCase c;
                    c.name = std::string(kindName) + "_" + std::to_string(rows) + "x" +
                             std::to_string(cols) + "_eps" + tag(eps);
                    c.description =
                        std::string(kind == Kind::LayerNorm         ? "layerNorm with beta"
                                    : kind == Kind::LayerNormNoBeta ? "layerNorm without beta"
                                                                    : "rmsNorm") +
                        ", " + std::to_string(rows) + " x " + std::to_string(cols) + ", eps " +
                        text(eps) + ", x in [-2.5, 3.5]" +
                        (rows > 1 ? " with a constant first row" : "") + "; seeds x " +
                        std::to_string(xSeed) + ", gamma " + std::to_string(gSeed) + ", beta " +
                        std::to_string(bSeed);
                    c.run = [=](Backend& be) {
                        const auto x = normInput(rows, cols, xSeed);
                        const auto g = randomValues(cols, gSeed);
                        const auto b = randomValues(cols, bSeed);
                        auto xt = be.upload(x.data(), rows, cols);
                        auto gt = be.vector({g.data(), cols});
                        auto y = be.create(rows, cols);
                        if (kind == Kind::RmsNorm) {
                            be.rmsNorm(*xt, *gt, eps, *y);
                        } else {
                            auto bt = be.vector({b.data(), cols});
                            be.layerNorm(*xt, *gt, kind == Kind::LayerNorm ? bt.get() : nullptr,
                                         eps, *y);
                        }
                        return download(be, *y);
                    };
                    c.tolerance = kNorm;
                    cases.push_back(std::move(c));
                }
            }
        }
    }
}

// Gemma 3n's activation sparsity: relu(x − (mean + z·std)) per row, at its 0.95 quantile and a
// small z; a constant row (std 0) keeps nothing, a single column neither. The same reductions as
// layerNorm's, so its tolerance: an element within that of the cutoff may give 0 on one backend.
void addGaussianTopKCases(std::vector<OpCase>& cases) {
    unsigned seed = 190;
    for (int rows : {1, 9})
        for (int cols : {1, 37, 300, 16384})
            for (float z : {1.6448534f, 0.25f}) {
                const unsigned xSeed = seed++;
                OpCase c;
                c.name = "GaussianTopK_" + std::to_string(rows) + "x" + std::to_string(cols) +
                         "_z" + tag(z);
                c.description = "gaussianTopK, " + std::to_string(rows) + " x " +
                                std::to_string(cols) + ", z " + text(z) + ", x in [-2.5, 3.5]" +
                                (rows > 1 ? " with a constant first row" : "") + "; seed " +
                                std::to_string(xSeed);
                c.run = [=](Backend& be) {
                    const auto x = normInput(rows, cols, xSeed);
                    auto xt = be.upload(x.data(), rows, cols);
                    auto y = be.create(rows, cols);
                    be.gaussianTopK(*xt, z, *y);
                    return download(be, *y);
                };
                c.tolerance = kNorm;
                cases.push_back(std::move(c));
            }
}

// Rows of heads side by side; the first row's second head is zero and must stay zero.
// With Reformer's eps (a zero head stays zero) and Gated DeltaNet's 1e-6.
void addNormalizeHeadsCases(std::vector<OpCase>& cases) {
    unsigned seed = 150;
    for (float eps : {kNormalizeHeadsEps, 1e-6f})
        for (int rows : {1, 9})
            for (auto [headDim, heads] : {std::pair{8, 4}, std::pair{37, 3}, std::pair{64, 2}}) {
                const unsigned xSeed = seed++;
                const int cols = headDim * heads;
                OpCase c;
                c.name = "NormalizeHeads_" + std::to_string(rows) + "x" + std::to_string(heads) +
                         "heads_d" + std::to_string(headDim) +
                         (eps == kNormalizeHeadsEps ? std::string() : "_eps" + tag(eps));
                c.description = "normalizeHeads: " + std::to_string(rows) + " rows of " +
                                std::to_string(heads) + " heads of " + std::to_string(headDim) +
                                ", eps " + text(eps) +
                                ", x in [-2.5, 3.5], row 0 head 1 zero; seed " +
                                std::to_string(xSeed);
                // Bindings are copied by name: clang 14 cannot capture a structured binding.
                c.run = [=, headDim = headDim](Backend& be) {
                    auto x = normInput(rows, cols, xSeed);
                    std::fill(x.begin() + headDim, x.begin() + 2 * headDim, 0.0f);
                    auto xt = be.upload(x.data(), rows, cols);
                    auto y = be.create(rows, cols);
                    be.normalizeHeads(*xt, headDim, eps, *y);
                    return download(be, *y);
                };
                c.tolerance = kNormalizeHeads;
                cases.push_back(std::move(c));
            }
}

// QK-norm's per-head RMSNorm: each head's block normed and scaled by the same head_dim gains;
// Mamba-2's norm per group: each block by its own part of a row-wide gamma.
void addRmsNormHeadsCases(std::vector<OpCase>& cases) {
    unsigned seed = 170;
    for (int rows : {1, 9})
        for (auto [headDim, heads] : {std::pair{8, 4}, std::pair{37, 3}, std::pair{128, 2}})
            for (bool wide : {false, true}) {
                const unsigned xSeed = seed++, gSeed = seed++;
                const int cols = headDim * heads, gammaWidth = wide ? cols : headDim;
                OpCase c;
                c.name = "RmsNormHeads_" + std::to_string(rows) + "x" + std::to_string(heads) +
                         "heads_d" + std::to_string(headDim) + (wide ? "_gammaPerBlock" : "");
                c.description = "rmsNormHeads: " + std::to_string(rows) + " rows of " +
                                std::to_string(heads) + " heads of " + std::to_string(headDim) +
                                ", eps 1e-6, x in [-2.5, 3.5], gamma " +
                                std::to_string(gammaWidth) + " wide; seeds x " +
                                std::to_string(xSeed) + ", gamma " + std::to_string(gSeed);
                c.run = [=, headDim = headDim](Backend& be) {
                    const auto x = normInput(rows, cols, xSeed);
                    const auto g = randomValues(gammaWidth, gSeed);
                    auto xt = be.upload(x.data(), rows, cols);
                    auto gt = be.vector({g.data(), gammaWidth});
                    auto y = be.create(rows, cols);
                    be.rmsNormHeads(*xt, headDim, *gt, 1e-6f, *y);
                    return download(be, *y);
                };
                c.tolerance = kNorm;  // the same reductions as rmsNorm, over each head
                cases.push_back(std::move(c));
            }
}

// ---- activations, glu, add

// A dense sweep of [-10, 10] plus large magnitudes where a naive tanh overflows.
std::vector<float> activationSweep() {
    std::vector<float> x;
    for (int i = -4000; i <= 4000; ++i) x.push_back(i / 400.0f);
    for (float v : {-1e4f, -88.0f, -30.0f, 30.0f, 88.0f, 1e4f, 1e-7f, -1e-7f, 0.0f}) x.push_back(v);
    return x;
}

void addActivationCases(std::vector<OpCase>& cases) {
    for (Activation a : {Activation::GeluTanh, Activation::GeluExact, Activation::Relu,
                         Activation::ReluSquared, Activation::Silu}) {
        OpCase c;
        c.name = std::string("Activate_") + activationName(a);
        c.description = std::string("activate ") + activationName(a) +
                        " in place on 1 x 8010: [-10, 10] in steps of 1/400, then -1e4, -88, "
                        "-30, 30, 88, 1e4, 1e-7, -1e-7, 0";
        c.run = [a](Backend& be) {
            const auto x = activationSweep();
            auto t = be.upload(x.data(), 1, static_cast<int>(x.size()));
            be.activate(*t, a);
            return download(be, *t);
        };
        c.tolerance = kActivation;
        cases.push_back(std::move(c));
    }
    // Apertus's xIELU: the parameters its initialisation gives (alpha_p 0.8, alpha_n 0.8, beta
    // 0.5, eps -1e-6) and a learned-looking set; the sweep crosses eps and the small negative
    // inputs where expm1 must not cancel.
    for (const XIeluParameters& p :
         {XIeluParameters{0.8f, 0.8f, 0.5f, -1e-6f}, XIeluParameters{1.37f, 0.64f, 0.5f, -1e-6f}}) {
        OpCase c;
        c.name = "XIelu_alphaP" + tag(p.alphaP) + "_alphaN" + tag(p.alphaN);
        c.description = "xielu in place on 1 x 8010 (the activation sweep), alpha_p " +
                        text(p.alphaP) + ", alpha_n " + text(p.alphaN) + ", beta 0.5, eps -1e-6";
        c.run = [p](Backend& be) {
            const auto x = activationSweep();
            auto t = be.upload(x.data(), 1, static_cast<int>(x.size()));
            be.xielu(*t, p);
            return download(be, *t);
        };
        c.tolerance = kActivation;
        cases.push_back(std::move(c));
    }
}

// up := act(gate) * up, then sum := 2 (up's input + gate) through an aliased add, in one batch.
// Returns (up, sum).
std::pair<std::vector<float>, std::vector<float>> runGluAndAdd(Backend& be, Activation gated) {
    auto gate = randomValues(7 * 173, 21, 12.0f);
    gate[0] = -200.0f;  // exp(-g) overflows to infinity: silu must still be -0
    const auto up = randomValues(7 * 173, 22, 2.0f);
    auto g = be.upload(gate.data(), 7, 173);
    auto u = be.upload(up.data(), 7, 173);
    be.glu(*g, *u, gated);
    auto sum = be.upload(up.data(), 7, 173);
    be.add(*sum, *g);
    be.add(*sum, *sum);  // aliasing the accumulator is allowed
    return {download(be, *u), download(be, *sum)};
}

void addGluAndAddCases(std::vector<OpCase>& cases) {
    const std::string inputs =
        "gate 7 x 173 in [-12, 12] with gate[0] = -200 (seed 21), up 7 x 173 in [-2, 2] (seed 22)";
    for (Activation gated : {Activation::SwiGlu, Activation::GeluTanhGlu, Activation::GeluGlu,
                             Activation::SigmoidGlu, Activation::ProductGlu}) {
        OpCase glu;
        glu.name = std::string("Glu_") + activationName(gated);
        glu.description =
            std::string("glu ") + activationName(gated) + ": up := act(gate) * up; " + inputs;
        glu.run = [gated](Backend& be) { return runGluAndAdd(be, gated).first; };
        glu.tolerance = kGlu;
        cases.push_back(std::move(glu));

        OpCase add;
        add.name = std::string("Add_AfterGlu") + activationName(gated);
        add.description = std::string(
                              "add: sum := up; sum += gate; sum += sum (aliased), queued "
                              "after glu ") +
                          activationName(gated) + "; " + inputs;
        add.run = [gated](Backend& be) { return runGluAndAdd(be, gated).second; };
        add.tolerance = kAdd;
        cases.push_back(std::move(add));
    }
}

// gpt-oss's experts: gate and up interleaved, 5 x 2·37 in [-12, 12] so that both clamps (gate
// above 7, up outside ±7) are reached.
void addClampedSwiGluCase(std::vector<OpCase>& cases) {
    OpCase c;
    c.name = "ClampedSwiGlu_5x74";
    c.description = "clampedSwiGlu: out (5 x 37) of gate/up pairs (5 x 74) in [-12, 12]; seed 23";
    c.run = [](Backend& be) {
        const auto pairs = randomValues(5 * 74, 23, 12.0f);
        auto in = be.upload(pairs.data(), 5, 74);
        auto out = be.create(5, 37);
        be.clampedSwiGlu(*in, *out);
        return download(be, *out);
    };
    c.tolerance = kGlu;
    cases.push_back(std::move(c));
    // The same activation of gate and up kept apart (gpt-oss's GGUF files): glu.
    OpCase apart;
    apart.name = "Glu_ClampedSwiGlu_5x37";
    apart.description =
        "glu ClampedSwiGlu: up := ClampedSwiGlu(gate, up), gate and up 5 x 37 in [-12, 12]; "
        "seeds 24, 25";
    apart.run = [](Backend& be) {
        const auto gateValues = randomValues(5 * 37, 24, 12.0f);
        const auto upValues = randomValues(5 * 37, 25, 12.0f);
        auto gate = be.upload(gateValues.data(), 5, 37);
        auto up = be.upload(upValues.data(), 5, 37);
        be.glu(*gate, *up, Activation::ClampedSwiGlu);
        return download(be, *up);
    };
    apart.tolerance = kGlu;
    cases.push_back(std::move(apart));
}

// ---- rope, copyRows

void addRopeCases(std::vector<OpCase>& cases) {
    for (const RopeShape& s : ropeShapes()) {
        OpCase c;
        c.name = "Rope_" + std::to_string(s.rows) + "rows_d" + std::to_string(s.headDim) + "_x" +
                 std::to_string(s.heads) + "heads_rotary" + std::to_string(s.rotaryDims) +
                 "_theta" + tag(s.theta) + (s.scale != 1.0f ? "_scale" + tag(s.scale) : "") +
                 (s.interleaved ? "_interleaved" : "");
        c.description =
            "rope: " + std::to_string(s.rows) + " rows, " + std::to_string(s.heads) + " heads of " +
            std::to_string(s.headDim) + ", rotary dims " + std::to_string(s.rotaryDims) +
            ", theta " + text(s.theta) + ", cos/sin scale " + text(s.scale) +
            (s.interleaved ? ", pairs (2i, 2i + 1)" : "") + "; seed " + std::to_string(31 + s.rows);
        c.run = [s](Backend& be) { return runRope(be, s); };
        c.tolerance = kRope;
        cases.push_back(std::move(c));
    }
}

void addCopyRowsCases(std::vector<OpCase>& cases) {
    for (auto [first, count] : {std::pair{10, 1}, std::pair{4, 3}}) {
        OpCase c;
        c.name = "CopyRows_11x5_first" + std::to_string(first) + "_count" + std::to_string(count);
        c.description = "copyRows: rows [" + std::to_string(first) + ", " +
                        std::to_string(first + count) + ") of 11 x 5; seed 41";
        c.run = [first = first, count = count](Backend& be) {  // see addNormalizeHeadsCases
            const auto x = randomValues(11 * 5, 41);
            auto t = be.upload(x.data(), 11, 5);
            auto rows = be.create(count, 5);
            be.copyRows(*t, first, count, *rows, 0);
            return download(be, *rows);
        };
        c.tolerance = kCopy;
        cases.push_back(std::move(c));
    }
}

// A mixture of experts' row moves: an expert's tokens gathered, its weighted outputs added into
// theirs.
void addRowMoveCases(std::vector<OpCase>& cases) {
    const std::vector<int> rows = {7, 0, 3};
    OpCase gather;
    gather.name = "GatherRows_rows7_0_3_of_9x6";
    gather.description = "gatherRows: rows 7, 0, 3 of 9 x 6; seed 43";
    gather.run = [rows](Backend& be) {
        const auto x = randomValues(9 * 6, 43);
        auto source = be.upload(x.data(), 9, 6);
        auto out = be.create(3, 6);
        be.gatherRows(*source, rows, *out);
        return download(be, *out);
    };
    gather.tolerance = kCopy;
    cases.push_back(std::move(gather));
    // Latent attention's layout: columns of one source (repeated, reordered) or of two.
    OpCase columns;
    columns.name = "GatherColumns_5x7_and_5x4";
    columns.description =
        "gatherColumns: 5 x 12 from [5 x 7 | 5 x 4] by 9, 0, 2, 10, 10, 6, 1, 7, 3, 3, 8, 4 "
        "(seeds 46, 47), then 5 x 4 from the first alone by 6, 5, 0, 6";
    columns.run = [](Backend& be) {
        const auto a = randomValues(5 * 7, 46), b = randomValues(5 * 4, 47);
        auto first = be.upload(a.data(), 5, 7);
        auto second = be.upload(b.data(), 5, 4);
        auto both = be.create(5, 12);
        be.gatherColumns(*first, second.get(), {9, 0, 2, 10, 10, 6, 1, 7, 3, 3, 8, 4}, *both);
        auto alone = be.create(5, 4);
        be.gatherColumns(*first, nullptr, {6, 5, 0, 6}, *alone);
        std::vector<float> out = download(be, *both);
        const std::vector<float> tail = download(be, *alone);
        out.insert(out.end(), tail.begin(), tail.end());
        return out;
    };
    columns.tolerance = kCopy;
    cases.push_back(std::move(columns));
    OpCase add;
    add.name = "AddWeightedRows_3x6_into_rows7_0_3_of_9x6";
    add.description =
        "addWeightedRows: 3 x 6 rows times 0.25, -1.5, 0.7 added into rows 7, 0, 3 "
        "of 9 x 6; seeds 44 (rows), 45 (sum)";
    add.run = [rows](Backend& be) {
        const auto x = randomValues(3 * 6, 44);
        const auto sum = randomValues(9 * 6, 45);
        auto source = be.upload(x.data(), 3, 6);
        auto out = be.upload(sum.data(), 9, 6);
        be.addWeightedRows(*source, rows, {0.25f, -1.5f, 0.7f}, *out);
        return download(be, *out);
    };
    add.tolerance = kWeightedAdd;
    cases.push_back(std::move(add));
}

// ---- attention

struct AttentionShape {
    int n;
    AttentionLayout layout;
    int qHeads, kHeads, vHeads;  // heads stored in each input
    int keys = 0;                // rows of k and v (cross-attention); 0: n
    int keyCount() const { return keys > 0 ? keys : n; }
};

// One attention call: a shape, options, which heads are captured, and the inputs' seed.
struct AttentionRun {
    AttentionShape shape;
    AttentionOptions options;
    bool captureAll;  // else scores of even heads and probabilities of heads h % 3 == 1
    unsigned seed;
    bool positionBias = false;  // a random heads·n x keys bias (seed + 3), as T5 adds
    bool sinks = false;         // a sink logit per head in [-3, 3] (seed + 4), as gpt-oss has
    // One n x keys bias every head shares (seed + 3), as DeepSeek sparse attention keeps some keys
    // per query: 0 on about half the keys and the diagonal, kUnselectedKeyBias elsewhere.
    bool sharedBias = false;
};

struct AttentionOutputs {
    std::vector<float> out;
    std::vector<std::vector<float>> scores, probabilities;
};

bool capturesScores(const AttentionRun& r, int head) { return r.captureAll || head % 2 == 0; }
bool capturesProbabilities(const AttentionRun& r, int head) {
    return r.captureAll || head % 3 == 1;
}

// Uncaptured host buffers are filled with -7 first: they must stay untouched on both backends.
AttentionOutputs runAttention(Backend& be, const AttentionRun& r) {
    const AttentionShape& c = r.shape;
    const int dk = c.layout.headDim, dv = c.layout.valueWidth();
    const int heads = c.layout.heads;
    const int keys = c.keyCount();
    const auto q = randomValues(static_cast<size_t>(c.n) * c.qHeads * dk, r.seed, 2.0f);
    const auto k = randomValues(static_cast<size_t>(keys) * c.kHeads * dk, r.seed + 1, 2.0f);
    const auto v = randomValues(static_cast<size_t>(keys) * c.vHeads * dv, r.seed + 2);
    const size_t cells = static_cast<size_t>(c.n) * keys;
    AttentionOutputs o;
    o.scores.assign(heads, std::vector<float>(cells, -7.0f));
    o.probabilities.assign(heads, std::vector<float>(cells, -7.0f));
    AttentionCapture capture;
    for (int h = 0; h < heads; ++h) {
        capture.scores.push_back(capturesScores(r, h) ? o.scores[h].data() : nullptr);
        capture.probabilities.push_back(capturesProbabilities(r, h) ? o.probabilities[h].data()
                                                                    : nullptr);
    }
    auto qt = be.upload(q.data(), c.n, c.qHeads * dk);
    auto kt = be.upload(k.data(), keys, c.kHeads * dk);
    auto vt = be.upload(v.data(), keys, c.vHeads * dv);
    auto out = be.create(c.n, heads * dv);
    AttentionOptions options = r.options;
    std::unique_ptr<Tensor> bias;
    if (r.positionBias) {
        const auto values = randomValues(cells * heads, r.seed + 3, 3.0f);
        bias = be.upload(values.data(), heads * c.n, keys);
        options.positionBias = bias.get();
    }
    if (r.sharedBias) {
        auto values = randomValues(cells, r.seed + 3);
        for (size_t cell = 0; cell < cells; ++cell)
            values[cell] =
                values[cell] > 0.0f || cell / keys == cell % keys ? 0.0f : kUnselectedKeyBias;
        bias = be.upload(values.data(), c.n, keys);
        options.positionBias = bias.get();
    }
    std::unique_ptr<Tensor> sinks;
    if (r.sinks) {
        const auto values = randomValues(heads, r.seed + 4, 3.0f);
        sinks = be.upload(values.data(), 1, heads);
        options.sinks = sinks.get();
    }
    be.attention(*qt, *kt, *vt, c.layout, options, *out, &capture);
    o.out = download(be, *out);
    return o;
}

std::string shapeTag(const AttentionShape& c) {
    const AttentionLayout& l = c.layout;
    return "n" + std::to_string(c.n) + (c.keys > 0 ? "x" + std::to_string(c.keys) : "") + "_h" +
           std::to_string(l.heads) + "_d" + std::to_string(l.headDim) + "_g" +
           std::to_string(l.queryGroup) + "_" + std::to_string(l.keyGroup) + "_" +
           std::to_string(l.valueGroup) +
           (l.valueDim > 0 ? "_dv" + std::to_string(l.valueDim) : "");
}

std::string optionsTag(const AttentionOptions& o) {
    std::string t = o.causal ? "Causal" : "Full";
    if (o.maskSelf) t += "_MaskSelf";
    if (o.scaleOutside) t += "_ScaleOutside";
    if (o.transform == ScoreTransform::Symmetric) t += "_Sym";
    if (o.transform == ScoreTransform::Skew) t += "_Skew";
    if (o.scale > 0) t += "_Scale" + tag(o.scale);
    if (o.softCap > 0) t += "_SoftCap" + tag(o.softCap);
    if (o.window > 0) t += "_Window" + std::to_string(o.window);
    if (o.chunk > 0) t += "_Chunk" + std::to_string(o.chunk);
    return t;
}

std::string describeAttention(const AttentionShape& c, const AttentionOptions& o) {
    const AttentionLayout& l = c.layout;
    return "attention: n " + std::to_string(c.n) +
           (c.keys > 0 ? ", keys " + std::to_string(c.keys) : "") + ", heads " +
           std::to_string(l.heads) + ", d_k " + std::to_string(l.headDim) +
           (l.valueDim > 0 ? ", d_v " + std::to_string(l.valueDim) : "") + ", groups q/k/v " +
           std::to_string(l.queryGroup) + "/" + std::to_string(l.keyGroup) + "/" +
           std::to_string(l.valueGroup) + ", stored heads q/k/v " + std::to_string(c.qHeads) + "/" +
           std::to_string(c.kHeads) + "/" + std::to_string(c.vHeads) +
           (o.causal ? ", causal" : ", not causal") + (o.maskSelf ? ", maskSelf" : "") +
           (o.scaleOutside ? ", scaleOutside" : "") +
           (o.transform == ScoreTransform::Symmetric ? ", symmetric scores"
            : o.transform == ScoreTransform::Skew    ? ", skew scores"
                                                     : "") +
           (o.scale > 0 ? ", scale " + text(o.scale) : "") +
           (o.softCap > 0 ? ", softCap " + text(o.softCap) : "") +
           (o.window > 0 ? ", window " + std::to_string(o.window) : "") +
           (o.chunk > 0 ? ", chunks of " + std::to_string(o.chunk) : "");
}

void addAttentionCases(std::vector<OpCase>& cases) {
    const AttentionShape shapes[] = {
        {1, {4, 8, 1, 1, 1}, 4, 4, 4},    // one token
        {5, {4, 8, 1, 1, 1}, 4, 4, 4},    // d_k = 8
        {67, {2, 16, 1, 2, 2}, 2, 1, 1},  // GQA: 2 query heads share one KV head
        {13, {4, 8, 1, 1, 2}, 4, 4, 2},   // shared-qk under GQA: keys from W_Q, values grouped
        {9, {3, 5, 1, 1, 1}, 3, 3, 3},    // d_k = 5: nothing aligned to 4
        {70, {2, 64, 2, 2, 2}, 1, 1, 1},  // slots filled from KV-head projections
    };
    std::vector<AttentionRun> runs;
    unsigned seed = 500;
    for (const AttentionShape& c : shapes) {
        for (bool causal : {true, false})
            runs.push_back({c, {causal, false, false, ScoreTransform::None}, true, seed++});
        runs.push_back({c, {true, true, false, ScoreTransform::None}, false, seed++});
        runs.push_back({c, {false, true, true, ScoreTransform::None}, true, seed++});
        runs.push_back({c, {true, false, true, ScoreTransform::Symmetric}, true, seed++});
        runs.push_back({c, {false, true, false, ScoreTransform::Skew}, false, seed++});
        // Gemma-2's attention: its own scale, soft-capped scores, a sliding window.
        runs.push_back(
            {c, {true, false, false, ScoreTransform::None, 0.2f, 5.0f, 4}, true, seed++});
        runs.push_back(
            {c, {true, true, true, ScoreTransform::Symmetric, 0.0f, 2.0f, 1}, true, seed++});
        runs.push_back(
            {c, {false, false, false, ScoreTransform::Skew, 0.5f, 0.0f, 3}, false, seed++});
    }
    // T5: no scaling and a position bias, causal in the decoder's self-attention.
    for (const AttentionShape& c : {shapes[1], shapes[2], shapes[4]}) {
        runs.push_back({c, {true, false, false, ScoreTransform::None, 1.0f}, true, seed++, true});
        runs.push_back({c, {false, false, true, ScoreTransform::None}, false, seed++, true});
    }
    // gpt-oss: a sink logit per head, with and without a sliding window and capture.
    for (const AttentionShape& c : {shapes[1], shapes[2], shapes[4]}) {
        runs.push_back({c, {true, false, false, ScoreTransform::None}, true, seed++, false, true});
        runs.push_back({c,
                        {true, false, false, ScoreTransform::None, 0.0f, 0.0f, 4},
                        false,
                        seed++,
                        false,
                        true});
        runs.push_back(
            {c, {true, true, true, ScoreTransform::Symmetric}, true, seed++, false, true});
    }
    // Llama 4's chunked layers: keys of the query's own chunk, with and without capture, under a
    // score transform and beside a window (which the two masks intersect).
    for (const AttentionShape& c : {shapes[1], shapes[2], shapes[3]}) {
        AttentionOptions chunked{true, false, false, ScoreTransform::None};
        chunked.chunk = 4;
        runs.push_back({c, chunked, true, seed++});
        runs.push_back({c, chunked, false, seed++});
        chunked.transform = ScoreTransform::Symmetric;
        chunked.window = 3;
        chunked.chunk = 5;
        runs.push_back({c, chunked, true, seed++});
    }
    // Latent attention: value heads narrower (DeepSeek) or wider than d_k.
    const AttentionShape latent[] = {
        {11, {4, 24, 1, 1, 1, 16}, 4, 4, 4},
        {9, {3, 6, 1, 1, 1, 13}, 3, 3, 3},
    };
    for (const AttentionShape& c : latent) {
        runs.push_back({c, {true, false, false, ScoreTransform::None}, true, seed++});
        runs.push_back({c, {true, false, false, ScoreTransform::Symmetric, 0.3f}, false, seed++});
    }
    // DeepSeek sparse attention: the keys each query keeps, one choice for every head.
    for (const AttentionShape& c : {shapes[1], shapes[2], latent[0]})
        for (bool captureAll : {true, false}) {
            AttentionRun sparse{c, {true, false, false, ScoreTransform::None}, captureAll, seed++};
            sparse.sharedBias = true;
            runs.push_back(sparse);
        }
    // Cross-attention: the target's queries read n_k source keys, with no mask.
    const AttentionShape rectangular[] = {
        {7, {4, 8, 1, 1, 1}, 4, 4, 4, 11},   // more source tokens than target tokens
        {1, {4, 8, 1, 1, 1}, 4, 4, 4, 9},    // the first decoding step
        {67, {2, 16, 1, 2, 2}, 2, 1, 1, 5},  // GQA, fewer source tokens
        {9, {3, 5, 1, 1, 1}, 3, 3, 3, 70},   // nothing aligned to 4
    };
    for (const AttentionShape& c : rectangular) {
        runs.push_back({c, {false, false, false, ScoreTransform::None}, true, seed++});
        runs.push_back({c, {false, false, true, ScoreTransform::None, 0.0f, 3.0f}, false, seed++});
        runs.push_back({c, {false, false, false, ScoreTransform::None, 1.0f}, true, seed++, true});
    }

    // One case per compared result: the output, then each head's scores and probabilities.
    for (const AttentionRun& r : runs) {
        const std::string prefix = "Attention_" + shapeTag(r.shape) + "_" + optionsTag(r.options) +
                                   (r.positionBias ? "_Bias" : "") +
                                   (r.sharedBias ? "_KeptKeys" : "") + (r.sinks ? "_Sinks" : "") +
                                   (r.captureAll ? "_CaptureAll_" : "_CaptureSome_");
        const std::string about =
            describeAttention(r.shape, r.options) +
            (r.positionBias ? ", position bias (seed + 3)" : "") +
            (r.sharedBias ? ", kept keys shared by the heads (seed + 3)" : "") +
            (r.sinks ? ", sink logits in [-3, 3] (seed + 4)" : "") +
            (r.captureAll ? ", capture all"
                          : ", capture scores of even heads and "
                            "probabilities of heads h % 3 == 1") +
            "; seeds q " + std::to_string(r.seed) + ", k " + std::to_string(r.seed + 1) + ", v " +
            std::to_string(r.seed + 2);
        OpCase out;
        out.name = prefix + "Out";
        out.description = about + "; compared: the output";
        out.run = [r](Backend& be) { return runAttention(be, r).out; };
        out.tolerance = kAttentionOutput;
        cases.push_back(std::move(out));
        for (int h = 0; h < r.shape.layout.heads; ++h) {
            const std::string head = std::to_string(h);
            OpCase scores;
            scores.name = prefix + "ScoresHead" + head;
            scores.description =
                about + "; compared: scores of head " + head +
                (capturesScores(r, h) ? "" : " (not captured: the -7 fill stays untouched)");
            scores.run = [r, h](Backend& be) { return runAttention(be, r).scores[h]; };
            scores.tolerance = kScores;
            cases.push_back(std::move(scores));

            OpCase probabilities;
            probabilities.name = prefix + "ProbabilitiesHead" + head;
            probabilities.description =
                about + "; compared: probabilities of head " + head +
                (capturesProbabilities(r, h) ? "" : " (not captured: the -7 fill stays untouched)");
            probabilities.run = [r, h](Backend& be) {
                return runAttention(be, r).probabilities[h];
            };
            probabilities.tolerance = kProbabilities;
            cases.push_back(std::move(probabilities));
        }
    }

    OpCase plain;
    plain.name = "Attention_n33_h4_d8_g1_2_2_Causal_NoCapture_Out";
    plain.description =
        "attention: n 33, heads 4, d_k 8, groups q/k/v 1/2/2, stored heads q/k/v 4/2/2, default "
        "options (causal), no capture; seeds q 61, k 62, v 63; compared: the output";
    plain.run = [](Backend& be) {
        const AttentionLayout layout{4, 8, 1, 2, 2};
        const auto q = randomValues(33 * 32, 61), k = randomValues(33 * 16, 62),
                   v = randomValues(33 * 16, 63);
        auto qt = be.upload(q.data(), 33, 32);
        auto kt = be.upload(k.data(), 33, 16);
        auto vt = be.upload(v.data(), 33, 16);
        auto out = be.create(33, 32);
        be.attention(*qt, *kt, *vt, layout, {}, *out, nullptr);
        return download(be, *out);
    };
    plain.tolerance = kAttentionWithoutCapture;
    cases.push_back(std::move(plain));
}

std::vector<OpCase> buildCases() {
    std::vector<OpCase> cases;
    addLinearCases(cases);
    addCompactLinearCases(cases);
    addSplitWeightCases(cases);
    addNormCases(cases);
    addGaussianTopKCases(cases);
    addNormalizeHeadsCases(cases);
    addRmsNormHeadsCases(cases);
    addActivationCases(cases);
    addGluAndAddCases(cases);
    addClampedSwiGluCase(cases);
    addRopeCases(cases);
    addCopyRowsCases(cases);
    addRowMoveCases(cases);
    addAttentionCases(cases);
    addMixerCases(cases);
    std::set<std::string> names;
    for (const OpCase& c : cases) {
        const bool identifier =
            !c.name.empty() && std::all_of(c.name.begin(), c.name.end(), [](char ch) {
                return std::isalnum(static_cast<unsigned char>(ch)) || ch == '_';
            });
        if (!identifier || !names.insert(c.name).second)
            throw Error("op case name is not a unique identifier: " + c.name);
    }
    return cases;
}

}  // namespace

std::string describe(const Tolerance& tolerance) {
    std::ostringstream s;
    s << "limit " << tolerance.limit << " on ";
    switch (tolerance.normalisation) {
        case Normalisation::Absolute:
            s << "max |vulkan - cpu|";
            break;
        case Normalisation::ToLargest:
            s << "max |vulkan - cpu| / (1 + max |cpu|)";
            break;
        case Normalisation::ToEach:
            s << "max |vulkan_i - cpu_i| / (1 + |cpu_i|)";
            break;
    }
    return s.str();
}

NormalisedError normalisedError(const std::vector<float>& actual,
                                const std::vector<float>& expected, Normalisation normalisation) {
    NormalisedError result;
    if (actual.size() != expected.size()) {
        result.error = INFINITY;
        return result;
    }
    double largest = 0.0;
    for (float v : expected) largest = std::max(largest, static_cast<double>(std::abs(v)));
    for (size_t i = 0; i < actual.size(); ++i) {
        const double difference = std::abs(static_cast<double>(actual[i]) - expected[i]);
        if (std::isnan(difference)) return {INFINITY, i};
        const double scale = normalisation == Normalisation::Absolute ? 1.0
                             : normalisation == Normalisation::ToLargest
                                 ? 1.0 + largest
                                 : 1.0 + std::abs(expected[i]);
        const double error = difference / scale;
        if (error > result.error) result = {error, i};
    }
    return result;
}

const std::vector<OpCase>& backendOpCases() {
    static const std::vector<OpCase> cases = buildCases();
    return cases;
}

void PrintTo(const OpCase& c, std::ostream* os) { *os << c.name << " (" << c.description << ")"; }

const char* layoutName(WeightLayout layout) {
    switch (layout) {
        case WeightLayout::RowMajor:
            return "row-major [in, out]";
        case WeightLayout::ColMajor:
            return "column-major [out, in]";
        case WeightLayout::RowMajorBlock:
            return "column block of a row-major [in, 3 out]";
        case WeightLayout::ColMajorBlock:
            return "column block of a column-major [3 out, in]";
        case WeightLayout::TransposedRowMajor:
            return "transposed row-major (tied LM head)";
    }
    return "";
}

const char* layoutTag(WeightLayout layout) {
    switch (layout) {
        case WeightLayout::RowMajor:
            return "RowMajor";
        case WeightLayout::ColMajor:
            return "ColMajor";
        case WeightLayout::RowMajorBlock:
            return "RowMajorBlock";
        case WeightLayout::ColMajorBlock:
            return "ColMajorBlock";
        case WeightLayout::TransposedRowMajor:
            return "TransposedRowMajor";
    }
    return "";
}

MatrixView weightView(WeightLayout layout, const std::vector<float>& storage, int k, int n) {
    switch (layout) {
        case WeightLayout::RowMajor:
            return MatrixView::rowMajor(storage.data(), k, n);
        case WeightLayout::ColMajor:
            return MatrixView::colMajor(storage.data(), k, n);
        case WeightLayout::RowMajorBlock:
            return MatrixView::rowMajor(storage.data(), k, 3 * n).columns(n, n);
        case WeightLayout::ColMajorBlock:
            return MatrixView::colMajor(storage.data(), k, 3 * n).columns(2 * n, n);
        case WeightLayout::TransposedRowMajor:
            return MatrixView::rowMajor(storage.data(), n, k).transposed();
    }
    return {};
}

const std::vector<RopeShape>& ropeShapes() {
    static const std::vector<RopeShape> shapes = {
        {1, 8, 4, 10000.0f, 8},
        {37, 8, 3, 10000.0f, 8},
        {300, 64, 2, 10000.0f, 64},
        {45, 128, 1, 500000.0f, 128},
        {29, 16, 4, 10000.0f, 4},
        {70, 64, 3, 10000.0f, 16},
        {50, 16, 4, 10000.0f, 12, 1.2247449f},  // LongRoPE-like: partial, scaled cos/sin
        {33, 16, 3, 500000.0f, 16, 1.0f, true},
        {21, 16, 2, 10000.0f, 8, 1.0f, true}};  // interleaved and partial
    return shapes;
}

RotaryFrequencies ropeFrequencies(const RopeShape& s) {
    Rotary rotary;
    rotary.theta = s.theta;
    rotary.dims = s.rotaryDims;
    rotary.context = s.rows;
    RotaryFrequencies f = rotary.frequencies(s.rows);
    f.scale = s.scale;
    f.interleaved = s.interleaved;
    return f;
}

std::vector<float> ropeInput(const RopeShape& s) {
    return randomValues(static_cast<size_t>(s.rows) * s.headDim * s.heads, 31 + s.rows);
}

std::vector<float> runRope(Backend& be, const RopeShape& s) {
    const int cols = s.headDim * s.heads;
    const auto x = ropeInput(s);
    auto t = be.upload(x.data(), s.rows, cols);
    auto y = be.create(s.rows, cols);
    be.rope(*t, s.headDim, ropeFrequencies(s), 0, *y);
    return download(be, *y);
}

}  // namespace qkv::test
