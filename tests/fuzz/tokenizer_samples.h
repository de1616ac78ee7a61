#pragma once
// Texts a tokenizer built from fuzzed files encodes, to exercise the vocabulary it ended up with:
// letters, digits, punctuation, whitespace runs, accents, CJK, emoji and special-token strings.
#include <string_view>

#include "core/tokenize/tokenizer.h"
#include "tests/fuzz/fuzz_support.h"

namespace qkv::fuzz {

inline constexpr std::string_view kSampleTexts[] = {
    "Hello world! The movie was a box office bomb.",
    "  naïve CAFÉ\t12,345 don't\n\n東京 🙂 e\xcc\x81",
    "<|endoftext|>[MASK] <s></s>[CLS]x[SEP] <unk>",
};

inline void encodeSamples(const Tokenizer& tokenizer) {
    for (std::string_view text : kSampleTexts) encodeAndCheck(tokenizer, text);
    for (int id = 0; id < tokenizer.vocabSize() && id < 64; ++id) {
        try {
            tokenizer.displayText(id);
        } catch (const Error&) {
            // A hole in the ids (tokenizer.json may leave some) has no piece.
        }
    }
}

}  // namespace qkv::fuzz
