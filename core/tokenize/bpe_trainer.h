#pragma once
// Trains a GPT-2 style byte-level BPE vocabulary on text:
//   1. text is split by GPT-2's pre-tokenizer pattern (byte_level.h) and each piece's bytes are
//      counted as a "word" (merges never cross piece boundaries, as in GPT-2);
//   2. starting from the 256 byte symbols, the most frequent adjacent pair within words is merged,
//      again and again, until the vocabulary reaches its size or no pair occurs twice. Ties go to
//      the pair whose two pieces compare smallest (byte-wise), so the result is deterministic;
//   3. special tokens (by default "<|endoftext|>") take the last ids.
// Ids: byte b is id b (as the character byte_level::charOf(b)), then one id per new piece in the
// order of the merges. A merge whose result is already a piece adds no id (as in Hugging Face's
// trainer). The files written by writeGpt2TokenizerFiles load with loadTokenizer and reproduce
// the segmentation learned here.
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace qkv {

class Regex;

struct BpeVocabulary {
    std::vector<std::string> pieces;                          // byte-level piece of each id
    std::vector<std::pair<std::string, std::string>> merges;  // highest priority first
};

class BpeTrainer {
  public:
    BpeTrainer();
    ~BpeTrainer();

    // Counts the pre-tokenized words of `text`; throws qkv::Error for invalid UTF-8.
    void addText(std::string_view text);

    // vocabSize counts the 256 bytes, the merged pieces and the special tokens; it must leave
    // room for the bytes and specials.
    BpeVocabulary train(int vocabSize,
                        const std::vector<std::string>& specialTokens = {"<|endoftext|>"}) const;

  private:
    std::unique_ptr<Regex> m_pattern;
    std::unordered_map<std::string, std::int64_t> m_counts;
};

// vocab.json ({"piece": id, ...} in id order) and merges.txt ("#version: 0.2", then "a b" per
// line), each written atomically into `folder`.
void writeGpt2TokenizerFiles(const BpeVocabulary& vocabulary, const std::filesystem::path& folder);

}  // namespace qkv
