#pragma once
// Added (special) tokens matched verbatim in the input before any other processing: "[MASK]"
// typed into a BERT sentence, "<|endoftext|>" for GPT-2, tokenizer.json's added_tokens.
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace qkv {

struct AddedToken {
    std::string content;
    int id = 0;
    bool singleWord = false;  // only match when not inside a word
    bool lstrip = false;      // the match swallows white space on its left
    bool rstrip = false;      // ... and on its right
};

// A piece of the input: an added token's match (tokenId >= 0) or plain text (tokenId < 0).
struct TextSegment {
    std::size_t begin = 0;
    std::size_t end = 0;
    int tokenId = -1;
};

class AddedTokenMatcher {
  public:
    AddedTokenMatcher() = default;
    explicit AddedTokenMatcher(std::vector<AddedToken> tokens);

    // Cuts valid UTF-8 `text` at added tokens: leftmost match first, the longest token at that
    // position, then single_word / lstrip / rstrip as Hugging Face's AddedVocabulary applies
    // them. The segments cover `text` in order; plain segments are never empty.
    std::vector<TextSegment> split(std::string_view text) const;

  private:
    std::vector<AddedToken> m_tokens;             // longest first
    std::vector<std::vector<int>> m_byFirstByte;  // 256 lists of indices into m_tokens
};

}  // namespace qkv
