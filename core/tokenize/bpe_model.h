#pragma once
// The BPE model of a tokenizer.json ("model": {"type": "BPE", ...}), as Hugging Face's
// tokenizers runs it on one pre-tokenized word:
//   vocab                      {"piece": id}
//   merges                     ["a b", ...] or [["a", "b"], ...], highest priority first
//   unk_token, fuse_unk        a character not in the vocabulary becomes unk_token (runs of
//                              them one token with fuse_unk); without unk_token it is dropped
//   byte_fallback              ... unless every UTF-8 byte has a "<0xXX>" token: then those
//   continuing_subword_prefix, end_of_word_suffix, ignore_merges
// dropout (a training-time regularizer) is ignored: encoding is deterministic.
#include <array>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "core/tokenize/bpe_merges.h"
#include "core/tokenize/vocabulary.h"

namespace qkv {

class BpeModel {
  public:
    // `where` names the model for errors, e.g. "<file>: model".
    BpeModel(const nlohmann::json& spec, const std::string& where);

    const Vocabulary& vocab() const { return m_vocab; }
    bool byteFallback() const { return m_byteFallback; }

    // The tokens of one word, with spans in bytes of `word`. A byte-fallback token spans the
    // whole character it came from.
    std::vector<PieceSpan> tokenize(std::string_view word) const;

  private:
    std::string m_where;
    Vocabulary m_vocab;
    BpeMerges m_merges;
    std::string m_unknown;  // empty: none
    int m_unknownId = Vocabulary::kMissing;
    bool m_fuseUnknown = false;
    bool m_byteFallback = false;
    bool m_ignoreMerges = false;
    std::string m_prefix;              // continuing_subword_prefix
    std::string m_suffix;              // end_of_word_suffix
    std::array<int, 256> m_byteIds{};  // ids of "<0x00>".."<0xFF>", or kMissing
};

}  // namespace qkv
