// A Hugging Face tokenizer.json (model, added tokens, normalizer, pre-tokenizer, post-processor),
// then encoding sample texts with the tokenizer it describes.
#include "core/tokenize/json_bpe_tokenizer.h"
#include "tests/fuzz/fuzz_support.h"
#include "tests/fuzz/fuzz_target.h"
#include "tests/fuzz/tokenizer_samples.h"

using namespace qkv;

QKV_FUZZ_TARGET(tokenizer_json) {
    const auto path = fuzz::writeScratch("tokenizer.json", input);
    const JsonBpeTokenizer tokenizer(path);
    fuzz::encodeSamples(tokenizer);
}
