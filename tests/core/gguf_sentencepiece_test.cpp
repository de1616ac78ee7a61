// A GGUF file's SentencePiece vocabulary (tokenizer.ggml.model = "llama": pieces, scores, token
// types, as llama.cpp's converter writes them from a tokenizer.model) tokenizes text as the
// SentencePiece library does with the model it came from. The model is trained here, by
// SentencePiece's own trainer, with the options Llama's and Gemma's tokenizer.model carry (BPE,
// byte fallback, no normalisation, spaces kept), so the library is an independent oracle.
#include <gtest/gtest.h>
#include <sentencepiece_processor.h>
#include <sentencepiece_trainer.h>

#include <fstream>

#include "core/io/gguf_writer.h"
#include "core/model/gguf_tokenizer.h"
#include "core/util/error.h"
#include "tests/support/fixture_writer.h"

namespace qkv {
namespace {

constexpr const char* kCorpus[] = {
    "Attention lets every token look at every other token and decide how much to take from it.",
    "The query of one token is compared with the keys of all tokens; the values are mixed.",
    "Why does a head need three matrices when one would do? Because asking and answering differ.",
    "A shared query and key matrix makes the scores symmetric: if a attends to b, b attends to a.",
    "Tied keys and values make a token's answer the same vector as the address it is found by.",
    "In 2017 the transformer replaced recurrence with attention, 8 heads of 64 dimensions each.",
    "Students ask whether W_Q, W_K and W_V could be one matrix; the lab shows what changes.",
    "Heads that attend to the previous token, to the first token, or to repeated words are common.",
    "The softmax turns scores into weights that sum to one over the keys a query may see.",
    "Rotary position embeddings turn queries and keys by angles that grow with the position.",
    "Grouped queries share one key and value head among several query heads to save memory.",
    "Quantised weights store blocks of 32 or 256 numbers with one scale for each block.",
    "Researchers compare the learned matrices with tied ones, layer by layer and head by head.",
    "Teachers use the heatmaps to explain attention; students export them for their reports.",
    "Numbers such as 3.14, 42 and 1,024 appear in text too, and so do e-mail addresses.",
    "Café, naïve, Zürich and résumé have letters beyond ASCII that a tokenizer must handle.",
};

// tokenizer.ggml.* as llama.cpp's converter writes it from a SentencePiece model: every piece
// with its score and type (SentencePiece's piece types are llama.cpp's token types).
void writeVocabulary(const sentencepiece::SentencePieceProcessor& sp, GgufWriter& gguf) {
    std::vector<std::string> tokens;
    std::vector<float> scores;
    std::vector<std::int32_t> types;
    for (int id = 0; id < sp.GetPieceSize(); ++id) {
        tokens.push_back(sp.IdToPiece(id));
        scores.push_back(sp.GetScore(id));
        types.push_back(sp.IsUnknown(id)   ? 2
                        : sp.IsControl(id) ? 3
                        : sp.IsUnused(id)  ? 5
                        : sp.IsByte(id)    ? 6
                                           : 1);  // the model has no user-defined pieces (4)
    }
    gguf.addString("general.architecture", "llama");
    gguf.addString("tokenizer.ggml.model", "llama");
    gguf.addStrings("tokenizer.ggml.tokens", tokens);
    gguf.addFloat32s("tokenizer.ggml.scores", scores);
    gguf.addInt32s("tokenizer.ggml.token_type", types);
    gguf.addUint32("tokenizer.ggml.bos_token_id", sp.bos_id());
    gguf.addUint32("tokenizer.ggml.eos_token_id", sp.eos_id());
    gguf.addUint32("tokenizer.ggml.unknown_token_id", sp.unk_id());
}

class GgufSentencePiece : public testing::Test {
  protected:
    void SetUp() override {
        const auto corpus = m_dir.path() / "corpus.txt";
        std::ofstream out(corpus);
        for (const char* line : kCorpus) out << line << "\n";
        out.close();
        std::string model;
        // Llama's and Gemma's tokenizer.model: BPE, byte fallback, identity normalisation,
        // whitespace kept as it is, a dummy space prefix (Llama; Gemma has none).
        const std::string options = "--input=" + corpus.string() +
                                    " --model_type=bpe --vocab_size=420 --byte_fallback=true"
                                    " --normalization_rule_name=identity"
                                    " --remove_extra_whitespaces=false --split_digits=true"
                                    " --character_coverage=1.0 --num_threads=1"
                                    " --hard_vocab_limit=false --minloglevel=2";
        const auto trained = sentencepiece::SentencePieceTrainer::Train(options, nullptr, &model);
        ASSERT_TRUE(trained.ok()) << trained.ToString();
        ASSERT_TRUE(m_sp.LoadFromSerializedProto(model).ok());
    }

    std::vector<int> ours(const GgufWriter& gguf) const {
        gguf.write(m_dir.path() / "t.gguf");
        std::vector<int> ids;
        for (const Token& t : ggufTokenizer(GgufFile(m_dir.path() / "t.gguf"))->encode(m_text))
            ids.push_back(t.id);
        return ids;
    }

    test::TempDir m_dir;
    sentencepiece::SentencePieceProcessor m_sp;
    std::string m_text;
};

// Words of the corpus, words it never saw (their letters merge by other pieces), characters no
// piece has (byte fallback: an emoji, CJK), runs of spaces, a leading space and a newline.
constexpr const char* kSentences[] = {
    "Attention lets every token look at every other token.",
    "Why does a head need three matrices?",
    "Unseen words: xylophone, quizzically, bewildering.",
    "Numbers 12345 and 3.14159 and 1,024,000.",
    "  two leading spaces, and  two  inside",
    "a line\nand another line",
    "Emoji 🙂 and 注意力 fall back to bytes.",
    "Café naïve Zürich — résumé.",
    "W_Q, W_K and W_V: (q·k)/√d",
};

TEST_F(GgufSentencePiece, EncodesAsSentencePieceDoesWithTheModelItCameFrom) {
    GgufWriter gguf;
    writeVocabulary(m_sp, gguf);
    gguf.addBool("tokenizer.ggml.add_bos_token", false);
    for (const char* sentence : kSentences) {
        m_text = sentence;
        std::vector<int> expected;
        ASSERT_TRUE(m_sp.Encode(m_text, &expected).ok());
        EXPECT_EQ(ours(gguf), expected) << sentence;
    }
}

TEST_F(GgufSentencePiece, AddsBosAsLlamaCppDoesWhenTheFileDoesNotSay) {
    GgufWriter gguf;
    writeVocabulary(m_sp, gguf);  // no add_bos_token: llama.cpp adds BOS to SentencePiece text
    m_text = "Attention lets every token look.";
    std::vector<int> expected;
    ASSERT_TRUE(m_sp.Encode(m_text, &expected).ok());
    expected.insert(expected.begin(), m_sp.bos_id());
    EXPECT_EQ(ours(gguf), expected);
}

TEST_F(GgufSentencePiece, WithoutASpacePrefixTheFirstWordHasNone) {
    GgufWriter gguf;
    writeVocabulary(m_sp, gguf);
    gguf.addBool("tokenizer.ggml.add_bos_token", false);
    gguf.addBool("tokenizer.ggml.add_space_prefix", false);  // as Gemma's files say
    m_text = "Attention lets every token look.";
    // SentencePiece with its dummy prefix sees "▁Attention ..."; without it the text starts at
    // "A", and a space written out gives the prefixed tokens back.
    std::vector<int> expected;
    ASSERT_TRUE(m_sp.Encode(m_text, &expected).ok());
    const std::vector<int> unprefixed = ours(gguf);
    ASSERT_FALSE(unprefixed.empty());
    EXPECT_EQ(m_sp.IdToPiece(unprefixed.front()).rfind("\u2581", 0), std::string::npos)
        << m_sp.IdToPiece(unprefixed.front());
    m_text = " " + m_text;
    EXPECT_EQ(ours(gguf), expected);
}

TEST_F(GgufSentencePiece, AVocabularyWithoutScoresIsRefused) {
    GgufWriter gguf;
    gguf.addString("tokenizer.ggml.model", "llama");
    gguf.addStrings("tokenizer.ggml.tokens", {"<unk>", "<s>", "</s>", "a"});
    gguf.write(m_dir.path() / "t.gguf");
    try {
        ggufTokenizer(GgufFile(m_dir.path() / "t.gguf"));
        FAIL() << "read without scores";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("tokenizer.ggml.scores is missing"), std::string::npos)
            << e.what();
    }
}

}  // namespace
}  // namespace qkv
