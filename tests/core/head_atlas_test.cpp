// The head atlas's tally on shared models: each head's mean is the mean of its per-sequence
// scores, atlases of two parts merge into the atlas of the whole (counts exactly, sums to
// rounding), and a hybrid's implicit maps have a form of their own.
#include "core/analysis/head_atlas.h"

#include <gtest/gtest.h>

#include "core/analysis/head_detectors.h"
#include "core/model/forward.h"
#include "core/util/error.h"
#include "tests/support/shared_assets.h"

namespace qkv {
namespace {

std::vector<int> headsOf(const Architecture& c) {
    std::vector<int> heads;
    for (int l = 0; l < c.layers; ++l) heads.push_back(c.headsOf(l));
    return heads;
}

ForwardResult forward(const Model& model, Backend& backend, const std::vector<int>& ids,
                      bool scores = true) {
    ForwardRequest request;
    request.ids = ids;
    request.capture.scores = scores;
    return ForwardPass(model, backend).run(request);
}

const std::vector<std::vector<int>> kSequences = {
    {3, 17, 52, 9, 17, 52, 9, 40},  // repeats: duplicate and induction cells
    {8, 8, 21, 77, 5, 21, 77},
    {60, 61, 62}};

TEST(HeadAtlas, MeansArePerDocumentMeansAndHalvesMerge) {
    QKV_REQUIRE_SHARED(shared);
    auto model = Model::open(shared / "models" / "gpt2-random-tiny");
    auto backend = createCpuBackend();
    const std::vector<int> heads = headsOf(model->architecture());
    HeadAtlas whole(heads), first(heads), rest(heads);
    std::vector<ForwardResult> results;
    for (size_t d = 0; d < kSequences.size(); ++d) {
        results.push_back(forward(*model, *backend, kSequences[d]));
        whole.addSequence(results.back().trace, kSequences[d]);
        (d == 0 ? first : rest).addSequence(results.back().trace, kSequences[d]);
    }
    EXPECT_EQ(whole.sequences(), 3);
    first.merge(rest);
    for (int l = 0; l < whole.layers(); ++l)
        for (int h = 0; h < whole.heads(l); ++h) {
            // Counts exactly; sums to rounding: s0 + (s1 + s2) against (s0 + s1) + s2, of
            // values below 10 (entropy and distance of 8-token sequences).
            EXPECT_EQ(first.tally(l, h).count, whole.tally(l, h).count);
            for (int s = 0; s < kAtlasScores; ++s)
                EXPECT_NEAR(first.tally(l, h).sum[s], whole.tally(l, h).sum[s], 1e-13);
            double induction = 0;
            for (size_t d = 0; d < kSequences.size(); ++d)
                induction += detectorScore(results[d].trace.probabilities(l, h), kSequences[d],
                                           HeadPattern::Induction);
            EXPECT_DOUBLE_EQ(*whole.mean(l, h, AtlasScore::Induction), induction / 3);
            EXPECT_TRUE(whole.mean(l, h, AtlasScore::ScoreSymmetry).has_value());
        }
}

// Without captured scores a softmax head has no score symmetry; the rest is there.
TEST(HeadAtlas, ScoresLeftOutAreCountedAsAbsent) {
    QKV_REQUIRE_SHARED(shared);
    auto model = Model::open(shared / "models" / "gpt2-random-tiny");
    auto backend = createCpuBackend();
    HeadAtlas atlas(headsOf(model->architecture()));
    atlas.addSequence(forward(*model, *backend, kSequences[0], false).trace, kSequences[0]);
    EXPECT_FALSE(atlas.mean(0, 0, AtlasScore::ScoreSymmetry).has_value());
    EXPECT_FALSE(atlas.mean(0, 0, AtlasScore::Directionality).has_value());
    EXPECT_EQ(atlas.tally(0, 0).count[static_cast<int>(AtlasScore::PreviousToken)], 1);
    EXPECT_THROW(atlas.addSequence(forward(*model, *backend, kSequences[1]).trace, kSequences[0]),
                 Error);
}

// A Gated DeltaNet layer's heads are its implicit maps: their symmetry is the map's own.
TEST(HeadAtlas, ImplicitMapsHaveAFormOfTheirOwn) {
    QKV_REQUIRE_SHARED(shared);
    auto model = Model::open(shared / "models" / "qwen3_5-random-tiny");
    auto backend = createCpuBackend();
    const Architecture& c = model->architecture();
    HeadAtlas atlas(headsOf(c));
    const ForwardResult r = forward(*model, *backend, kSequences[1], false);
    atlas.addSequence(r.trace, kSequences[1]);
    int implicit = 0;
    for (int l = 0; l < c.layers; ++l) {
        if (!c.isImplicit(l)) continue;
        ++implicit;
        const RowMatrixXf& map = r.trace.probabilities(l, 0);
        const HeadSentenceScores s = scoreHeadOnSentence(map, map, kSequences[1]);
        EXPECT_DOUBLE_EQ(*atlas.mean(l, 0, AtlasScore::ScoreSymmetry), *s.scoreSymmetry);
    }
    EXPECT_GT(implicit, 0);
}

}  // namespace
}  // namespace qkv
