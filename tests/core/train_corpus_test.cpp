// The built-in story grammar and the corpus plumbing: determinism, the relations the stories
// are meant to carry, the file split, token streams and evaluation windows.
#include <gtest/gtest.h>

#include <fstream>
#include <set>

#include "core/train/corpus.h"
#include "core/train/story_grammar.h"
#include "core/util/error.h"
#include "tests/support/fixture_writer.h"

namespace qkv::train {
namespace {

TEST(TrainCorpus, StoriesAreDeterministicInTheSeed) {
    EXPECT_EQ(generateStories(3, 50), generateStories(3, 50));
    EXPECT_NE(generateStories(3, 50), generateStories(4, 50));
}

TEST(TrainCorpus, StoriesCarryDirectedRelationsPronounsAndAgreement) {
    std::string all;
    for (const auto& s : generateStories(1, 500)) all += s + "\n";
    for (const char* phrase : {" chased ", " ran away from ", " gave ", " back to ", "'s ", " she ",
                               " him", " her ", " than ", ", so ", "There are ", "There is a ",
                               " together", " sleeps", "Once upon a time"})
        EXPECT_NE(all.find(phrase), std::string::npos) << phrase;
}

TEST(TrainCorpus, BuiltinSplitIsFixed) {
    const TextCorpus corpus = builtinCorpus();
    EXPECT_EQ(corpus.train.size(), 24000u);
    EXPECT_EQ(corpus.validation, builtinValidationStories());
    EXPECT_EQ(corpus.validation.size(), 400u);
    const std::set<std::string> train(corpus.train.begin(), corpus.train.end());
    int shared = 0;
    for (const auto& s : corpus.validation) shared += train.count(s);
    EXPECT_LT(shared, 5);  // validation stories are (almost all) new stories
}

TEST(TrainCorpus, FileCorpusSplitsParagraphsOrLines) {
    test::TempDir dir;
    const auto lines = dir.path() / "lines.txt";
    {
        std::ofstream out(lines);
        for (int i = 0; i < 40; ++i) out << "line " << i << "\r\n";
    }
    TextCorpus corpus = fileCorpus(lines);
    EXPECT_EQ(corpus.train.size(), 38u);
    ASSERT_EQ(corpus.validation.size(), 2u);
    EXPECT_EQ(corpus.validation.back(), "line 39");

    const auto paragraphs = dir.path() / "paragraphs.txt";
    {
        std::ofstream out(paragraphs);
        for (int i = 0; i < 30; ++i) out << "para " << i << "\nsecond line\n\n";
    }
    corpus = fileCorpus(paragraphs);
    EXPECT_EQ(corpus.train.size() + corpus.validation.size(), 30u);
    EXPECT_EQ(corpus.train[0], "para 0\nsecond line");

    const auto single = dir.path() / "single.txt";
    std::ofstream(single) << "just one line";
    EXPECT_THROW(fileCorpus(single), Error);
    EXPECT_THROW(fileCorpus(dir.path() / "missing.txt"), Error);
}

TEST(TrainCorpus, EvaluationWindowsPredictEveryTokenOnce) {
    for (size_t length : {2u, 5u, 16u, 17u, 18u, 100u}) {
        std::vector<int> predicted(length, 0);
        for (const Window& w : evaluationWindows(length, 8)) {
            EXPECT_GE(w.length, 1);
            EXPECT_LE(w.length, 8);
            for (int t = 0; t < w.length; ++t) ++predicted[w.begin + t + 1];
        }
        EXPECT_EQ(predicted[0], 0);
        for (size_t i = 1; i < length; ++i) EXPECT_EQ(predicted[i], 1) << length << " " << i;
    }
}

}  // namespace
}  // namespace qkv::train
