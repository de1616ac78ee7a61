#pragma once
// GPT-2 byte-level BPE (vocab.json + merges.txt), matching transformers' GPT2Tokenizer:
//   1. "<|endoftext|>" in the text (when the vocabulary has it) is that token;
//   2. the rest is split by GPT-2's pre-tokenizer regex (byte_level.h);
//   3. each piece's UTF-8 bytes become byte-level characters and are merged by rank.
// A byte whose character is not in the vocabulary (only possible with tiny vocabularies such as
// gpt-nano-sort's "0","1","2") becomes "<|endoftext|>", GPT-2's unknown token, if the vocabulary
// has it; otherwise encode() throws qkv::Error naming the byte and its offset.
#include <array>
#include <filesystem>
#include <string>

#include "core/tokenize/added_tokens.h"
#include "core/tokenize/bpe_merges.h"
#include "core/tokenize/regex.h"
#include "core/tokenize/tokenizer.h"
#include "core/tokenize/vocabulary.h"

namespace qkv {

class Gpt2Tokenizer final : public Tokenizer {
  public:
    Gpt2Tokenizer(const std::filesystem::path& vocabJson, const std::filesystem::path& mergesTxt);

    std::vector<Token> encode(std::string_view text) const override;
    int vocabSize() const override { return m_vocab.size(); }
    std::string piece(int id) const override { return m_vocab.at(id); }
    std::string displayText(int id) const override;

  private:
    std::vector<PieceSpan> encodeWord(std::string_view word) const;

    std::string m_vocabFile;
    Vocabulary m_vocab;
    BpeMerges m_merges;
    Regex m_pattern;
    std::array<int, 256> m_byteIds{};  // vocabulary id of each byte's character, or kMissing
    AddedTokenMatcher m_specials;
    int m_unknownId = Vocabulary::kMissing;
};

}  // namespace qkv
