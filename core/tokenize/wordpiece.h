#pragma once
// WordPiece (BERT): greedy longest-match-first over a word's characters; pieces after the first
// carry the "##" prefix in the vocabulary. A word with more than `maxChars` characters, or with a
// part no piece matches, becomes one unknown token.
#include <string_view>
#include <vector>

#include "core/tokenize/vocabulary.h"

namespace qkv {

std::vector<PieceSpan> wordPiece(std::string_view word, const Vocabulary& vocab, int unknownId,
                                 std::size_t maxChars = 100);

}  // namespace qkv
