// What a mask hides: the dense counterfactual of a windowed, chunked or local head, computed from
// its captured scores and probabilities, is the probabilities the same head gives with the mask
// lifted (the CPU backend run twice on the same q, k, v), sinks and mask-self included; the
// dropped mass is what that lifted run puts on the hidden keys.
#include "core/analysis/hidden_keys.h"

#include <gtest/gtest.h>

#include <vector>

#include "core/backend/backend.h"
#include "tests/support/random_values.h"

namespace qkv {
namespace {

struct Captured {
    RowMatrixXf scores, probabilities;
};

// One head's attention over n random tokens under `options`.
Captured attend(Backend& be, int n, AttentionOptions options, unsigned seed) {
    const int dk = 8;
    const auto q = test::randomValues(n * dk, seed, 2.0f),
               k = test::randomValues(n * dk, seed + 1, 2.0f),
               v = test::randomValues(n * dk, seed + 2, 1.0f);
    auto qt = be.upload(q.data(), n, dk), kt = be.upload(k.data(), n, dk);
    auto vt = be.upload(v.data(), n, dk), out = be.create(n, dk);
    Captured c{RowMatrixXf(n, n), RowMatrixXf(n, n)};
    AttentionCapture capture{{c.scores.data()}, {c.probabilities.data()}};
    be.attention(*qt, *kt, *vt, {1, dk}, options, *out, &capture);
    return c;
}

TEST(HiddenKeys, TheCounterfactualIsTheHeadWithItsMaskLifted) {
    auto be = createCpuBackend();
    const float sinkLogit = 0.7f;
    auto sink = be->upload(&sinkLogit, 1, 1);
    struct Case {
        const char* what;
        AttentionOptions options;
    };
    std::vector<Case> cases;
    AttentionOptions window;
    window.window = 3;
    cases.push_back({"sliding window", window});
    AttentionOptions chunk;
    chunk.chunk = 4;
    cases.push_back({"chunks", chunk});
    AttentionOptions sinkWindow = window;
    sinkWindow.sinks = sink.get();
    cases.push_back({"window with a sink", sinkWindow});
    AttentionOptions maskSelf = chunk;
    maskSelf.maskSelf = true;
    cases.push_back({"chunks with mask-self", maskSelf});
    AttentionOptions local;
    local.causal = false;
    local.reach = 2;
    cases.push_back({"bidirectional local", local});

    const int n = 11;
    for (const Case& c : cases) {
        SCOPED_TRACE(c.what);
        const Captured masked = attend(*be, n, c.options, 40);
        AttentionOptions liftedOptions = c.options;
        liftedOptions.window = liftedOptions.chunk = liftedOptions.reach = 0;
        const Captured lifted = attend(*be, n, liftedOptions, 40);
        const KeyMask mask = c.options.keyMask();
        ASSERT_TRUE(hidesKeys(mask));
        const HiddenKeys hidden = whatTheMaskHides(masked.scores, masked.probabilities, mask,
                                                   c.options.maskSelf, c.options.sinks);
        double droppedSomewhere = 0.0;
        for (int i = 0; i < n; ++i) {
            double dropped = 0.0;
            for (int j = 0; j < n; ++j) {
                // Both float32 softmaxes of scores of a few units: a few ulps apart.
                EXPECT_NEAR(hidden.dense(i, j), lifted.probabilities(i, j), 2e-6)
                    << "row " << i << ", key " << j;
                if (mask.hides(i, j)) dropped += lifted.probabilities(i, j);
            }
            EXPECT_NEAR(hidden.dropped[i], dropped, 2e-6) << "row " << i;
            droppedSomewhere += hidden.dropped[i];
        }
        EXPECT_GT(droppedSomewhere, 0.1) << "the mask hid some mass";
    }
}

TEST(HiddenKeys, AMaskThatHidesNothingDropsNothing) {
    auto be = createCpuBackend();
    AttentionOptions wide;
    wide.window = 50;  // wider than the sentence
    const Captured c = attend(*be, 9, wide, 7);
    const HiddenKeys hidden =
        whatTheMaskHides(c.scores, c.probabilities, wide.keyMask(), false, false);
    for (int i = 0; i < 9; ++i) {
        EXPECT_EQ(hidden.dropped[i], 0.0);
        for (int j = 0; j < 9; ++j) EXPECT_NEAR(hidden.dense(i, j), c.probabilities(i, j), 1e-7);
    }
}

}  // namespace
}  // namespace qkv
