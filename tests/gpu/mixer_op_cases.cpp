// Op-table rows of the token mixers without a softmax: the short causal convolution, Gated
// DeltaNet's core and Mamba-2's (their outputs and their captured implicit maps).
#include <limits>
#include <string>

#include "tests/gpu/backend_op_cases.h"
#include "tests/gpu/gpu_test_support.h"

namespace qkv::test {
namespace {

// causalConv: at most 4 products of inputs in [-1, 1] and taps in [-1, 1] summed in float32 (the
// CPU sums in float64): a few ulps of 4, 1e-6 absolute.
constexpr Tolerance kConv{Normalisation::Absolute, 1e-6};
// gatedDeltaRule: each map entry is a float32 chain of up to n rank-1 updates of a dk-wide row
// (the CPU keeps it in float64), each step a few ulps of |u| <= 1; over 70 steps of 16 (or 33
// of 128) products, 2e-5 relative to the largest value. The output sums n of them times values
// in [-1, 1]: the same bound relative to its largest.
constexpr Tolerance kDeltaRule{Normalisation::ToLargest, 2e-5};

// stateSpace: each map entry is a stateDim-long float32 dot product of values in [-1, 1] times
// a decay exp(cum_t − cum_s) whose float32 cumulative sums (the CPU keeps float64) drift by a
// few ulps of |cum| <= 70 · 8 per step: 2e-5 relative to the largest value, as gatedDeltaRule's;
// the output sums n of them times values in [-1, 1], plus D x.
constexpr Tolerance kStateSpace{Normalisation::ToLargest, 2e-5};

// rows x cols values in [-scale, scale] from `seed` (randomValues), on the backend.
std::unique_ptr<Tensor> randomTensor(Backend& be, int rows, int cols, unsigned seed,
                                     float scale = 1.0f) {
    const auto values = randomValues(static_cast<size_t>(rows) * cols, seed, scale);
    return be.upload(values.data(), rows, cols);
}

struct ConvShape {
    int rows, channels, kernel;
    bool bias = false;
};

void addConvCases(std::vector<OpCase>& cases) {
    for (const ConvShape s :
         {ConvShape{1, 96, 4}, {13, 96, 4}, {70, 300, 3}, {5, 8, 1}, {14, 128, 4, true}}) {
        OpCase c;
        c.name = "CausalConv_" + std::to_string(s.rows) + "x" + std::to_string(s.channels) + "_k" +
                 std::to_string(s.kernel) + (s.bias ? "_bias" : "");
        c.description = "causalConv: " + std::to_string(s.rows) + " tokens of " +
                        std::to_string(s.channels) + " channels, " + std::to_string(s.kernel) +
                        " taps each; x and taps in [-1, 1] (seeds 61, 62)" +
                        (s.bias ? ", a bias in [-1, 1] (63)" : "");
        c.run = [s](Backend& be) {
            auto xt = randomTensor(be, s.rows, s.channels, 61);
            auto tt = randomTensor(be, 1, s.channels * s.kernel, 62);
            auto bt = randomTensor(be, 1, s.channels, 63);
            auto y = be.create(s.rows, s.channels);
            be.causalConv(*xt, *tt, s.bias ? bt.get() : nullptr, *y);
            return download(be, *y);
        };
        c.tolerance = kConv;
        cases.push_back(std::move(c));
    }
}

// Every head's n x n map, captured (filled with -7 first, so that a cell never written shows),
// and the result: the op's output followed by every map.
struct CapturedMaps {
    CapturedMaps(int heads, int n)
        : maps(heads, std::vector<float>(static_cast<size_t>(n) * n, -7.0f)) {
        capture.scores.assign(heads, nullptr);
        for (auto& m : maps) capture.probabilities.push_back(m.data());
    }
    std::vector<float> after(Backend& be, const Tensor& out) const {
        std::vector<float> result = download(be, out);
        for (const auto& m : maps) result.insert(result.end(), m.begin(), m.end());
        return result;
    }
    std::vector<std::vector<float>> maps;
    AttentionCapture capture;
};

struct DeltaShape {
    int tokens, keyHeads, valueHeads, keyDim, valueDim;
};

// Unit q and k (normalizeHeads with eps 1e-6), b and a spread so that β and γ reach both ends,
// A_log and dt_bias per head. Returns the output followed by every head's captured map.
std::vector<float> runDeltaRule(Backend& be, const DeltaShape& s) {
    const int n = s.tokens, qk = s.keyHeads * s.keyDim, vw = s.valueHeads * s.valueDim;
    auto rawQ = randomTensor(be, n, qk, 71), rawK = randomTensor(be, n, qk, 72);
    auto qt = be.create(n, qk), kt = be.create(n, qk);
    be.normalizeHeads(*rawQ, s.keyDim, 1e-6f, *qt);
    be.normalizeHeads(*rawK, s.keyDim, 1e-6f, *kt);
    auto vt = randomTensor(be, n, vw, 73);
    auto bt = randomTensor(be, n, s.valueHeads, 74, 6.0f);
    auto at = randomTensor(be, n, s.valueHeads, 75, 4.0f);
    auto aLogT = randomTensor(be, 1, s.valueHeads, 76, 2.0f);
    auto dtT = randomTensor(be, 1, s.valueHeads, 77, 1.0f);
    auto out = be.create(n, vw);
    const CapturedMaps maps(s.valueHeads, n);
    const DeltaRuleLayout layout{s.keyHeads, s.valueHeads, s.keyDim, s.valueDim,
                                 1.0f / std::sqrt(static_cast<float>(s.keyDim))};
    be.gatedDeltaRule(*qt, *kt, *vt, *bt, *at, *aLogT, *dtT, layout, *out, &maps.capture);
    return maps.after(be, *out);
}

void addDeltaRuleCases(std::vector<OpCase>& cases) {
    for (const DeltaShape s : {DeltaShape{1, 2, 4, 16, 16},
                               {13, 2, 4, 16, 16},
                               {70, 1, 2, 16, 8},
                               {33, 1, 2, 128, 128},
                               {9, 2, 2, 32, 16}}) {
        std::string name = "GatedDeltaRule_" + std::to_string(s.tokens) + "tokens_" +
                           std::to_string(s.keyHeads) + "k" + std::to_string(s.valueHeads) + "v_d" +
                           std::to_string(s.keyDim) + "x" + std::to_string(s.valueDim);
        std::string description =
            "gatedDeltaRule: " + std::to_string(s.tokens) + " tokens, " +
            std::to_string(s.keyHeads) + " key heads of " + std::to_string(s.keyDim) + ", " +
            std::to_string(s.valueHeads) + " value heads of " + std::to_string(s.valueDim) +
            "; unit q, k (seeds 71, 72), v in [-1, 1] (73), b in [-6, 6] (74), a in "
            "[-4, 4] (75), A_log in [-2, 2] (76), dt_bias in [-1, 1] (77); the "
            "output, then every head's implicit map";
        cases.push_back({std::move(name), std::move(description),
                         [s](Backend& be) { return runDeltaRule(be, s); }, kDeltaRule});
    }
}

struct StateSpaceShape {
    int tokens, heads, headDim, groups, stateDim;
    float dtMin, dtMax;
};

// x, B, C in [-1, 1], dt spread so that softplus and the clamp reach both ends, A_log, dt_bias
// and D per head. Returns the output followed by every head's captured map.
std::vector<float> runStateSpace(Backend& be, const StateSpaceShape& s) {
    const int n = s.tokens, xw = s.heads * s.headDim, bw = s.groups * s.stateDim;
    auto xt = randomTensor(be, n, xw, 81), bt = randomTensor(be, n, bw, 82);
    auto ct = randomTensor(be, n, bw, 83), dtT = randomTensor(be, n, s.heads, 84, 4.0f);
    auto aLogT = randomTensor(be, 1, s.heads, 85, 1.5f);
    auto biasT = randomTensor(be, 1, s.heads, 86, 1.0f);
    auto dT = randomTensor(be, 1, s.heads, 87, 2.0f);
    auto out = be.create(n, xw);
    const CapturedMaps maps(s.heads, n);
    const StateSpaceLayout layout{s.heads, s.headDim, s.groups, s.stateDim, s.dtMin, s.dtMax};
    be.stateSpace(*xt, *bt, *ct, *dtT, *aLogT, *biasT, *dT, layout, *out, &maps.capture);
    return maps.after(be, *out);
}

void addStateSpaceCases(std::vector<OpCase>& cases) {
    const float inf = std::numeric_limits<float>::infinity();
    for (const StateSpaceShape s : {StateSpaceShape{1, 4, 8, 2, 16, 0.0f, inf},
                                    {14, 8, 8, 2, 16, 0.05f, inf},
                                    {70, 6, 16, 1, 16, 0.0f, 0.5f},
                                    {33, 4, 64, 4, 128, 0.001f, inf}}) {
        std::string name = "StateSpace_" + std::to_string(s.tokens) + "tokens_" +
                           std::to_string(s.heads) + "h" + std::to_string(s.headDim) + "_" +
                           std::to_string(s.groups) + "g" + std::to_string(s.stateDim);
        std::string description =
            "stateSpace: " + std::to_string(s.tokens) + " tokens, " + std::to_string(s.heads) +
            " heads of " + std::to_string(s.headDim) + ", " + std::to_string(s.groups) +
            " groups of state " + std::to_string(s.stateDim) + ", dt clamped to [" +
            std::to_string(s.dtMin) + ", " + std::to_string(s.dtMax) +
            "]; x, B, C in [-1, 1] (seeds 81-83), dt in [-4, 4] (84), A_log in "
            "[-1.5, 1.5] (85), dt_bias in [-1, 1] (86), D in [-2, 2] (87); the "
            "output, then every head's implicit map";
        cases.push_back({std::move(name), std::move(description),
                         [s](Backend& be) { return runStateSpace(be, s); }, kStateSpace});
    }
}

}  // namespace

void addMixerCases(std::vector<OpCase>& cases) {
    addConvCases(cases);
    addDeltaRuleCases(cases);
    addStateSpaceCases(cases);
}

}  // namespace qkv::test
