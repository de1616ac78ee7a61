#pragma once
// SentencePiece models, run by the SentencePiece library itself, as Hugging Face's slow
// tokenizers use them:
//   T5 (spiece.model): the model's own ids, then </s>; ids past the model's pieces are T5's
//     <extra_id_N> sentinels (the highest id is <extra_id_0>).
//   Marian (source.spm, target.spm, vocab.json): pieces from source.spm (target.spm for the
//     target side), ids looked up in vocab.json (target_vocab.json with separate_vocabs), <unk>
//     for a piece it lacks, a leading ">>fra<<" language code kept as one token, then </s>.
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "core/tokenize/tokenizer.h"
#include "core/tokenize/vocabulary.h"

namespace sentencepiece {
class SentencePieceProcessor;
}

namespace qkv {

class SentencePieceTokenizer final : public Tokenizer {
  public:
    // Throws qkv::Error naming the file that is missing or malformed.
    static std::unique_ptr<SentencePieceTokenizer> t5(const std::filesystem::path& folder);
    static std::unique_ptr<SentencePieceTokenizer> marian(const std::filesystem::path& folder);
    ~SentencePieceTokenizer() override;

    std::vector<Token> encode(std::string_view text) const override;
    std::vector<Token> encodeTarget(std::string_view text) const override;
    int vocabSize() const override { return m_vocab.size(); }
    std::string piece(int id) const override;
    std::string displayText(int id) const override;

  private:
    struct Side {
        std::unique_ptr<sentencepiece::SentencePieceProcessor> model;
        const Vocabulary* ids = nullptr;  // Marian's vocab.json; null: the model's own ids
    };
    SentencePieceTokenizer();
    std::vector<Token> encodeWith(const Side& side, std::string_view text) const;
    int idOf(const Side& side, const std::string& piece) const;

    Side m_source, m_target;
    Vocabulary m_vocab;  // the source side's: vocab.json, or T5's pieces and sentinels
    Vocabulary m_targetVocab;
    bool m_languageCodes = false;  // Marian: ">>xx<<" at the start is one token
    std::string m_eos = "</s>";
    std::string m_unk = "<unk>";
};

}  // namespace qkv
