#include "core/tokenize/wordpiece.h"

#include <string>

#include "core/tokenize/utf8.h"

namespace qkv {

std::vector<PieceSpan> wordPiece(std::string_view word, const Vocabulary& vocab, int unknownId,
                                 std::size_t maxChars) {
    std::vector<std::size_t> boundaries;  // byte offset of each character, then word.size()
    for (std::size_t pos = 0; pos < word.size(); pos += utf8::sequenceLength(word[pos]))
        boundaries.push_back(pos);
    const std::vector<PieceSpan> unknown{{unknownId, 0, word.size()}};
    if (boundaries.size() > maxChars) return unknown;
    boundaries.push_back(word.size());

    std::vector<PieceSpan> pieces;
    std::string candidate;
    for (std::size_t first = 0; first + 1 < boundaries.size();) {
        int id = Vocabulary::kMissing;
        std::size_t last = boundaries.size() - 1;
        for (; last > first; --last) {
            candidate = first > 0 ? "##" : "";
            candidate.append(word.substr(boundaries[first], boundaries[last] - boundaries[first]));
            id = vocab.find(candidate);
            if (id != Vocabulary::kMissing) break;
        }
        if (id == Vocabulary::kMissing) return unknown;
        pieces.push_back({id, boundaries[first], boundaries[last]});
        first = last;
    }
    return pieces;
}

}  // namespace qkv
