#pragma once
// BERT's BasicTokenizer (transformers' tokenization_bert.py), keeping the original span of
// every character: lower-case (optional), drop NUL, U+FFFD and control characters, turn white
// space into ' ', put spaces around CJK ideographs, NFC, split on white space, strip accents
// (NFD, drop Mn) when asked, and split off every punctuation character.
#include <vector>

#include "core/tokenize/normalized_text.h"

namespace qkv {

struct BasicTokenizerOptions {
    bool lowerCase = true;
    bool stripAccents = true;  // transformers: strip_accents, or do_lower_case when unset
    bool splitChineseChars = true;
};

// The words of `text`, each still aligned to the original input.
std::vector<NormalizedText> basicTokenize(NormalizedText text,
                                          const BasicTokenizerOptions& options);

}  // namespace qkv
