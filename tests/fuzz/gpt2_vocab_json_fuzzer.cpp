// GPT-2 vocab.json (with a small fixed merges.txt), then encoding sample texts with the result.
#include "core/tokenize/gpt2_tokenizer.h"
#include "tests/fuzz/fuzz_support.h"
#include "tests/fuzz/fuzz_target.h"
#include "tests/fuzz/tokenizer_samples.h"

using namespace qkv;

QKV_FUZZ_TARGET(gpt2_vocab_json) {
    static const auto merges =
        fuzz::writeScratch("gpt2_vocab_merges.txt", "#version: 0.2\na a\naa aa\na b\n\xC4\xA0 a\n");
    const auto vocab = fuzz::writeScratch("vocab.json", input);
    const Gpt2Tokenizer tokenizer(vocab, merges);
    fuzz::encodeSamples(tokenizer);
}
