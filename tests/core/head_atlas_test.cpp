// The head atlas's tally on shared models: each head's mean is the mean of its per-sequence
// scores, an atlas computed in parts (one per block) equals the one computed at once to the last
// bit, the examples are each score's best rows, a configuration's change is the rows' total
// variation, and a hybrid's implicit maps have a form of their own.
#include "core/analysis/head_atlas.h"

#include <gtest/gtest.h>

#include <set>

#include "core/analysis/head_detectors.h"
#include "core/model/forward.h"
#include "core/util/error.h"
#include "tests/support/atlas_compare.h"
#include "tests/support/shared_assets.h"

namespace qkv {
namespace {

std::vector<int> headsOf(const Architecture& c) {
    std::vector<int> heads;
    for (int l = 0; l < c.layers; ++l) heads.push_back(c.headsOf(l));
    return heads;
}

ForwardResult forward(const Model& model, Backend& backend, const std::vector<int>& ids,
                      bool scores = true, const char* config = "learned") {
    ForwardRequest request;
    request.ids = ids;
    request.capture.scores = scores;
    request.config = WConfiguration::parse(config);
    return ForwardPass(model, backend).run(request);
}

const std::vector<std::vector<int>> kSequences = {
    {3, 17, 52, 9, 17, 52, 9, 40},  // repeats: duplicate and induction cells
    {8, 8, 21, 77, 5, 21, 77},
    {60, 61, 62}};

AtlasSequence sequence(std::size_t d) {
    AtlasSequence s;
    s.document = static_cast<std::int64_t>(d);
    s.ids = kSequences[d];
    for (int id : s.ids) s.pieces.push_back(" t" + std::to_string(id));
    return s;
}

class HeadAtlasOnGpt2 : public testing::Test {
  protected:
    void SetUp() override {
        QKV_REQUIRE_SHARED(shared);
        model = Model::open(shared / "models" / "gpt2-random-tiny");
        backend = createCpuBackend();
        heads = headsOf(model->architecture());
        for (const auto& ids : kSequences) results.push_back(forward(*model, *backend, ids));
    }
    std::unique_ptr<Model> model;
    std::unique_ptr<Backend> backend;
    std::vector<int> heads;
    std::vector<ForwardResult> results;
};

// Documents 0 and 1 form a block (closed), 2 opens the next: computed at once, or as the part of
// each block appended in order, the tallies agree to the last bit.
TEST_F(HeadAtlasOnGpt2, PartsAppendedEqualTheWholeToTheLastBit) {
    HeadAtlas whole(heads, {}, 2), firstPart(heads, {}, 2), secondPart(heads, {}, 2);
    for (std::size_t d = 0; d < kSequences.size(); ++d) {
        whole.addSequence(sequence(d), results[d].trace);
        (d < 2 ? firstPart : secondPart).addSequence(sequence(d), results[d].trace);
        if (d == 1) {
            whole.closeBlock();
            firstPart.closeBlock();
        }
    }
    HeadAtlas joined(heads, {}, 2);
    joined.append(firstPart);
    joined.append(secondPart);
    test::expectSameAtlas(whole, joined);
    EXPECT_EQ(whole.sequences(), 3);
    // An atlas with an open block takes no part: the sums would group otherwise.
    EXPECT_THROW(joined.append(secondPart), Error);
    for (int l = 0; l < whole.layers(); ++l)
        for (int h = 0; h < whole.heads(l); ++h) {
            double induction = 0;
            for (std::size_t d = 0; d < kSequences.size(); ++d)
                induction += detectorScore(results[d].trace.probabilities(l, h), kSequences[d],
                                           HeadPattern::Induction);
            EXPECT_NEAR(*whole.mean(l, h, HeadScore::Induction), induction / 3, 1e-15);
            EXPECT_TRUE(whole.mean(l, h, HeadScore::ScoreSymmetry).has_value());
        }
}

// Each score's examples: the best rows of the best sequences (one per sequence), their values
// each row's own, best first; only the sequences they name are kept.
TEST_F(HeadAtlasOnGpt2, ExamplesAreTheBestRowsOfTheBestSequences) {
    HeadAtlas atlas(heads, {}, 2);
    for (std::size_t d = 0; d < kSequences.size(); ++d)
        atlas.addSequence(sequence(d), results[d].trace);
    std::set<std::int64_t> named;
    for (int l = 0; l < atlas.layers(); ++l)
        for (int h = 0; h < atlas.heads(l); ++h) {
            const auto& top = atlas.tally(l, h, static_cast<int>(HeadScore::Self)).top;
            ASSERT_EQ(top.size(), 2u);
            EXPECT_GE(top[0].value, top[1].value);
            EXPECT_NE(top[0].document, top[1].document);
            double best = -1;  // the largest self share of an example row, over sequences
            for (std::size_t d = 0; d < kSequences.size(); ++d) {
                const RowMatrixXf& a = results[d].trace.probabilities(l, h);
                for (int i = kFirstExampleQuery; i < a.rows(); ++i)
                    best = std::max(best, static_cast<double>(a(i, i)) / a.row(i).sum());
            }
            EXPECT_NEAR(top[0].value, best, 1e-6);  // float rows summing to 1 within 1e-6
            const RowMatrixXf& a = results[top[0].document].trace.probabilities(l, h);
            EXPECT_NEAR(a(top[0].query, top[0].query) / a.row(top[0].query).sum(), top[0].value,
                        1e-6);
            // A score of the whole matrix names no row.
            EXPECT_EQ(atlas.tally(l, h, static_cast<int>(HeadScore::Directionality)).top[0].query,
                      -1);
            for (const auto& t : {top[0], top[1]}) named.insert(t.document);
        }
    for (const auto& [key, kept] : atlas.exampleSequences()) {
        EXPECT_EQ(kept.ids, kSequences[key.first]);
        EXPECT_EQ(kept.pieces.size(), kept.ids.size());
    }
    EXPECT_LE(atlas.exampleSequences().size(), 3u);
}

// A configuration's change: the mean over rows of the total variation against learned, the
// largest row its example. Tied K = V keeps layer 0's queries and keys, so its attention.
TEST_F(HeadAtlasOnGpt2, ChangeIsTheRowsTotalVariationAgainstLearned) {
    HeadAtlas atlas(heads, {"shared-qk", "tied-kv"}, 1);
    ASSERT_EQ(atlas.scoreIndex("change_shared-qk"), kHeadScores);
    const ForwardResult shared = forward(*model, *backend, kSequences[0], false, "shared-qk");
    const ForwardResult tied = forward(*model, *backend, kSequences[0], false, "tied-kv");
    atlas.addSequence(sequence(0), results[0].trace, {&shared.trace, &tied.trace});
    for (int l = 0; l < atlas.layers(); ++l)
        for (int h = 0; h < atlas.heads(l); ++h) {
            const RowMatrixXf& a = results[0].trace.probabilities(l, h);
            const RowMatrixXf& b = shared.trace.probabilities(l, h);
            double sum = 0, largest = 0;
            for (int i = 0; i < a.rows(); ++i) {
                const double tv = 0.5 * (a.row(i) - b.row(i)).cwiseAbs().cast<double>().sum();
                sum += tv;
                largest = std::max(largest, tv);
            }
            const ScoreTally& change = atlas.tally(l, h, kHeadScores);
            EXPECT_NEAR(*change.mean(), sum / a.rows(), 1e-6);  // rows normalised within 1e-6
            EXPECT_NEAR(change.top[0].value, largest, 1e-6);
            if (l == 0) EXPECT_EQ(*atlas.tally(l, h, kHeadScores + 1).mean(), 0.0);
        }
    EXPECT_GT(*atlas.tally(0, 0, kHeadScores).mean(), 1e-3);
    EXPECT_GT(*atlas.tally(1, 0, kHeadScores + 1).mean(), 1e-3);  // the values changed layer 0
}

// Without captured scores a softmax head has no score symmetry; the rest is there.
TEST_F(HeadAtlasOnGpt2, ScoresLeftOutAreCountedAsAbsent) {
    HeadAtlas atlas(heads);
    atlas.addSequence(sequence(0), forward(*model, *backend, kSequences[0], false).trace);
    EXPECT_FALSE(atlas.mean(0, 0, HeadScore::ScoreSymmetry).has_value());
    EXPECT_FALSE(atlas.mean(0, 0, HeadScore::Directionality).has_value());
    EXPECT_EQ(atlas.tally(0, 0, static_cast<int>(HeadScore::PreviousToken)).blockCount, 1);
    EXPECT_THROW(atlas.addSequence(sequence(0), results[1].trace), Error);
}

// A Gated DeltaNet layer's heads are its implicit maps: their symmetry is the map's own.
TEST(HeadAtlas, ImplicitMapsHaveAFormOfTheirOwn) {
    QKV_REQUIRE_SHARED(shared);
    auto model = Model::open(shared / "models" / "qwen3_5-random-tiny");
    auto backend = createCpuBackend();
    const Architecture& c = model->architecture();
    HeadAtlas atlas(headsOf(c));
    const ForwardResult r = forward(*model, *backend, kSequences[1], false);
    atlas.addSequence(sequence(1), r.trace);
    int implicit = 0;
    for (int l = 0; l < c.layers; ++l) {
        if (!c.isImplicit(l)) continue;
        ++implicit;
        const RowMatrixXf& map = r.trace.probabilities(l, 0);
        const HeadSentenceScores s = scoreHeadOnSentence(map, map, kSequences[1]);
        EXPECT_DOUBLE_EQ(*atlas.mean(l, 0, HeadScore::ScoreSymmetry), *s.scoreSymmetry);
    }
    EXPECT_GT(implicit, 0);
}

}  // namespace
}  // namespace qkv
