// The byte-level BPE trainer: deterministic merges, GPT-2 files that loadTokenizer reads, and a
// round trip in which the lead's GPT-2 tokenizer reproduces the trainer's own segmentation.
#include <gtest/gtest.h>

#include <fstream>
#include <map>

#include "core/tokenize/bpe_trainer.h"
#include "core/tokenize/byte_level.h"
#include "core/tokenize/regex.h"
#include "core/tokenize/tokenizer.h"
#include "core/train/story_grammar.h"
#include "core/util/error.h"
#include "tests/support/fixture_writer.h"

namespace qkv {
namespace {

std::vector<std::string> sampleTexts() {
    auto texts = train::generateStories(5, 200);
    texts.push_back("Unicode too: naïve café, 東京, emoji 🙂, tabs\tand\nnew lines  ");
    return texts;
}

// The segmentation training produces: every merge, in rank order, applied left to right.
std::vector<std::string> trainedSegmentation(const BpeVocabulary& vocab, const std::string& word) {
    std::vector<std::string> pieces;
    for (unsigned char c : word) pieces.push_back(byte_level::charOf(c));
    for (const auto& [left, right] : vocab.merges) {
        std::vector<std::string> merged;
        for (size_t i = 0; i < pieces.size(); ++i) {
            if (i + 1 < pieces.size() && pieces[i] == left && pieces[i + 1] == right) {
                merged.push_back(left + right);
                ++i;
            } else {
                merged.push_back(pieces[i]);
            }
        }
        pieces = std::move(merged);
    }
    return pieces;
}

TEST(TrainBpe, VocabularyLayout) {
    BpeTrainer trainer;
    for (const auto& t : sampleTexts()) trainer.addText(t);
    const BpeVocabulary vocab = trainer.train(400);
    ASSERT_LE(vocab.pieces.size(), 400u);
    for (int b = 0; b < 256; ++b) EXPECT_EQ(vocab.pieces[b], byte_level::charOf(b));
    EXPECT_EQ(vocab.pieces.back(), "<|endoftext|>");
    // Frequent words become single pieces ("Ġ" is the byte-level space).
    const std::map<std::string, int> ids = [&] {
        std::map<std::string, int> m;
        for (size_t i = 0; i < vocab.pieces.size(); ++i) m[vocab.pieces[i]] = static_cast<int>(i);
        return m;
    }();
    for (const char* word : {"Once", "Ġupon", "Ġtime", "Ġthe"})
        EXPECT_TRUE(ids.count(word)) << word;
    // Pieces are unique.
    EXPECT_EQ(ids.size(), vocab.pieces.size());
}

TEST(TrainBpe, TrainingIsDeterministic) {
    BpeTrainer a, b;
    const auto texts = sampleTexts();
    for (const auto& t : texts) a.addText(t);
    for (auto it = texts.rbegin(); it != texts.rend(); ++it) b.addText(*it);  // order-independent
    const BpeVocabulary va = a.train(350), vb = b.train(350);
    EXPECT_EQ(va.pieces, vb.pieces);
    EXPECT_EQ(va.merges, vb.merges);
}

TEST(TrainBpe, StopsWhenNoPairRepeats) {
    BpeTrainer trainer;
    trainer.addText("ab ab ab");
    const BpeVocabulary vocab = trainer.train(1000);
    // Words "ab" x1 and "Ġab" x2: "a b" (3 times) -> "ab", then "Ġ ab" (twice) -> "Ġab"; then
    // no pair is left.
    ASSERT_EQ(vocab.merges.size(), 2u);
    EXPECT_EQ(vocab.merges[0], std::make_pair(std::string("a"), std::string("b")));
    EXPECT_EQ(vocab.merges[1], std::make_pair(std::string("Ġ"), std::string("ab")));
    EXPECT_EQ(vocab.pieces.size(), 256u + 2u + 1u);
}

TEST(TrainBpe, RejectsTooSmallVocabulariesAndInvalidText) {
    BpeTrainer trainer;
    EXPECT_THROW(trainer.addText("\xff\xfe"), Error);
    EXPECT_THROW(trainer.train(100), Error);
}

TEST(TrainBpe, SavedFilesRoundTripThroughTheGpt2Tokenizer) {
    test::TempDir dir;
    BpeTrainer trainer;
    const auto texts = sampleTexts();
    for (const auto& t : texts) trainer.addText(t);
    const BpeVocabulary vocab = trainer.train(500);
    writeGpt2TokenizerFiles(vocab, dir.path());
    {
        std::ifstream merges(dir.path() / "merges.txt");
        std::string first;
        std::getline(merges, first);
        EXPECT_EQ(first, "#version: 0.2");
    }
    const auto tokenizer = loadTokenizer(dir.path());
    ASSERT_EQ(tokenizer->vocabSize(), static_cast<int>(vocab.pieces.size()));
    for (size_t id = 0; id < vocab.pieces.size(); ++id)
        EXPECT_EQ(tokenizer->piece(static_cast<int>(id)), vocab.pieces[id]);

    const Regex pattern(byte_level::kGpt2Pattern, "test");
    for (const std::string& text : texts) {
        std::string decoded;
        std::vector<std::string> pieces;
        for (const Token& t : tokenizer->encode(text)) {
            decoded += *byte_level::decode(t.piece);
            pieces.push_back(t.piece);
        }
        EXPECT_EQ(decoded, text);
        // Word by word, the tokenizer's pieces are the trainer's own segmentation.
        std::vector<std::string> trained;
        for (const auto& [begin, end] : pattern.findAll(text))
            for (auto& piece : trainedSegmentation(vocab, text.substr(begin, end - begin)))
                trained.push_back(piece);
        EXPECT_EQ(pieces, trained) << text;
    }
}

}  // namespace
}  // namespace qkv
