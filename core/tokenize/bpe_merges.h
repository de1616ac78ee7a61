#pragma once
// Byte-pair-encoding merge table and the merge loop, shared by GPT-2 (merges.txt) and
// tokenizer.json BPE models.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/tokenize/vocabulary.h"

namespace qkv {

class BpeMerges {
  public:
    BpeMerges() = default;
    // Ranks are positions in `pairs`. Each piece and its merge result must be in `vocab`,
    // else qkv::Error "<context>: merge N 'a b' ..." . With a continuing-subword prefix, "a ##b"
    // produces "ab" (as Hugging Face's tokenizers do). A repeated pair takes its later rank.
    BpeMerges(const std::vector<std::pair<std::string, std::string>>& pairs,
              const Vocabulary& vocab, std::string_view continuingPrefix, std::string_view context);

    // Merges adjacent pieces (a piece with id Vocabulary::kMissing, a character not in the
    // vocabulary, never merges), always the pair of lowest rank first (the leftmost one on ties),
    // until no pair has a merge: Hugging Face tokenizers' Word::merge_all, which gives the same
    // result as GPT-2's slow loop. O(n log n) in the number of symbols, so even a megabyte-long
    // "word" finishes quickly.
    void apply(std::vector<PieceSpan>& symbols) const;

  private:
    struct Merge {
        int rank = 0;
        int merged = 0;
    };
    static std::uint64_t key(int left, int right) {
        return (static_cast<std::uint64_t>(static_cast<std::uint32_t>(left)) << 32) |
               static_cast<std::uint32_t>(right);
    }
    const Merge* find(int left, int right) const;

    std::unordered_map<std::uint64_t, Merge> m_merges;
};

}  // namespace qkv
