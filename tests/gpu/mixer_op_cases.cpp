// Op-table rows of the token mixers without a softmax: the short causal convolution and Gated
// DeltaNet's core (its output and its captured implicit maps).
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

struct ConvShape {
    int rows, channels, kernel;
};

void addConvCases(std::vector<OpCase>& cases) {
    for (const ConvShape s : {ConvShape{1, 96, 4}, {13, 96, 4}, {70, 300, 3}, {5, 8, 1}}) {
        OpCase c;
        c.name = "CausalConv_" + std::to_string(s.rows) + "x" + std::to_string(s.channels) + "_k" +
                 std::to_string(s.kernel);
        c.description = "causalConv: " + std::to_string(s.rows) + " tokens of " +
                        std::to_string(s.channels) + " channels, " + std::to_string(s.kernel) +
                        " taps each; x and taps in [-1, 1] (seeds 61, 62)";
        c.run = [s](Backend& be) {
            const auto x = randomValues(static_cast<size_t>(s.rows) * s.channels, 61);
            const auto taps = randomValues(static_cast<size_t>(s.channels) * s.kernel, 62);
            auto xt = be.upload(x.data(), s.rows, s.channels);
            auto tt = be.upload(taps.data(), 1, s.channels * s.kernel);
            auto y = be.create(s.rows, s.channels);
            be.causalConv(*xt, *tt, *y);
            return download(be, *y);
        };
        c.tolerance = kConv;
        cases.push_back(std::move(c));
    }
}

struct DeltaShape {
    int tokens, keyHeads, valueHeads, keyDim, valueDim;
};

// Unit q and k (normalizeHeads with eps 1e-6), b and a spread so that β and γ reach both ends,
// A_log and dt_bias per head. Returns the output followed by every head's captured map.
std::vector<float> runDeltaRule(Backend& be, const DeltaShape& s) {
    const int n = s.tokens, qk = s.keyHeads * s.keyDim, vw = s.valueHeads * s.valueDim;
    const auto q = randomValues(static_cast<size_t>(n) * qk, 71);
    const auto k = randomValues(static_cast<size_t>(n) * qk, 72);
    const auto v = randomValues(static_cast<size_t>(n) * vw, 73);
    const auto b = randomValues(static_cast<size_t>(n) * s.valueHeads, 74, 6.0f);
    const auto a = randomValues(static_cast<size_t>(n) * s.valueHeads, 75, 4.0f);
    const auto aLog = randomValues(s.valueHeads, 76, 2.0f);
    const auto dtBias = randomValues(s.valueHeads, 77, 1.0f);
    auto rawQ = be.upload(q.data(), n, qk), rawK = be.upload(k.data(), n, qk);
    auto qt = be.create(n, qk), kt = be.create(n, qk);
    be.normalizeHeads(*rawQ, s.keyDim, 1e-6f, *qt);
    be.normalizeHeads(*rawK, s.keyDim, 1e-6f, *kt);
    auto vt = be.upload(v.data(), n, vw);
    auto bt = be.upload(b.data(), n, s.valueHeads), at = be.upload(a.data(), n, s.valueHeads);
    auto aLogT = be.upload(aLog.data(), 1, s.valueHeads);
    auto dtT = be.upload(dtBias.data(), 1, s.valueHeads);
    auto out = be.create(n, vw);
    std::vector<std::vector<float>> maps(s.valueHeads,
                                         std::vector<float>(static_cast<size_t>(n) * n, -7.0f));
    AttentionCapture capture;
    capture.scores.assign(s.valueHeads, nullptr);
    for (auto& m : maps) capture.probabilities.push_back(m.data());
    const DeltaRuleLayout layout{s.keyHeads, s.valueHeads, s.keyDim, s.valueDim,
                                 1.0f / std::sqrt(static_cast<float>(s.keyDim))};
    be.gatedDeltaRule(*qt, *kt, *vt, *bt, *at, *aLogT, *dtT, layout, *out, &capture);
    std::vector<float> result = download(be, *out);
    for (const auto& m : maps) result.insert(result.end(), m.begin(), m.end());
    return result;
}

void addDeltaRuleCases(std::vector<OpCase>& cases) {
    for (const DeltaShape s : {DeltaShape{1, 2, 4, 16, 16},
                               {13, 2, 4, 16, 16},
                               {70, 1, 2, 16, 8},
                               {33, 1, 2, 128, 128},
                               {9, 2, 2, 32, 16}}) {
        OpCase c;
        c.name = "GatedDeltaRule_" + std::to_string(s.tokens) + "tokens_" +
                 std::to_string(s.keyHeads) + "k" + std::to_string(s.valueHeads) + "v_d" +
                 std::to_string(s.keyDim) + "x" + std::to_string(s.valueDim);
        c.description = "gatedDeltaRule: " + std::to_string(s.tokens) + " tokens, " +
                        std::to_string(s.keyHeads) + " key heads of " + std::to_string(s.keyDim) +
                        ", " + std::to_string(s.valueHeads) + " value heads of " +
                        std::to_string(s.valueDim) +
                        "; unit q, k (seeds 71, 72), v in [-1, 1] (73), b in [-6, 6] (74), a in "
                        "[-4, 4] (75), A_log in [-2, 2] (76), dt_bias in [-1, 1] (77); the "
                        "output, then every head's implicit map";
        c.run = [s](Backend& be) { return runDeltaRule(be, s); };
        c.tolerance = kDeltaRule;
        cases.push_back(std::move(c));
    }
}

}  // namespace

void addMixerCases(std::vector<OpCase>& cases) {
    addConvCases(cases);
    addDeltaRuleCases(cases);
}

}  // namespace qkv::test
