// A Gated DeltaNet or Mamba-2 layer computes its output from its implicit map where that map is
// captured, and from its state where it is not (linear in the tokens): the logits agree either
// way.
#include <gtest/gtest.h>

#include "core/model/forward.h"
#include "tests/support/shared_assets.h"

namespace qkv {
namespace {

TEST(HybridCapture, LogitsAreTheSameWhetherTheLinearLayersAreCapturedOrNot) {
    QKV_REQUIRE_SHARED(shared);
    for (const char* name :
         {"qwen3_5-random-tiny", "qwen3_next-random-tiny", "nemotron_h-random-tiny",
          "granitemoehybrid-random-tiny", "falcon_h1-random-tiny"}) {
        SCOPED_TRACE(name);
        auto model = Model::open(shared / "models" / name);
        auto backend = createCpuBackend();
        ForwardPass pass(*model, *backend);
        ForwardRequest request;
        for (int i = 0; i < 40; ++i) request.ids.push_back(3 + (i * 37) % 400);
        const ForwardResult all = pass.run(request);  // every map kept
        const Architecture& c = model->architecture();
        int last = c.layers - 1;  // the last softmax layer alone is captured
        while (c.mixerOf(last) != Mixer::Attention || c.headsOf(last) == 0) --last;
        request.capture.layer = last;
        const ForwardResult one = pass.run(request);
        ASSERT_GT(last, 0);
        ASSERT_FALSE(one.trace.hasProbabilities(0, 0));
        // The two sums of the same float64 products differ in order only: far below float32's
        // rounding of the logits (about 1e-6 here).
        EXPECT_LE((all.logits - one.logits).cwiseAbs().maxCoeff(), 2e-5f);
        EXPECT_GT(all.logits.cwiseAbs().maxCoeff(), 0.1f);
    }
}

}  // namespace
}  // namespace qkv
