// Arbitrary bytes (invalid UTF-8 included) through tokenizer.json BPE tokenizers: stories260K's
// (Llama / SentencePiece style: Metaspace, byte fallback) and a Llama 3 style byte-level one.
#include "core/tokenize/json_bpe_tokenizer.h"
#include "tests/fuzz/fuzz_support.h"
#include "tests/fuzz/fuzz_target.h"

using namespace qkv;

QKV_FUZZ_TARGET(json_bpe_encode) {
    static const auto sentencePiece = fuzz::loadFixture([] {
        return std::make_unique<JsonBpeTokenizer>(fuzz::assetPath(
            "models/stories260K/tokenizer.json", "tokenizers/metaspace/tokenizer.json"));
    });
    static const auto byteLevel = fuzz::loadFixture([] {
        return std::make_unique<JsonBpeTokenizer>(
            fuzz::testDataPath("tokenizers/llama3-style/tokenizer.json"));
    });
    fuzz::encodeAndCheck(*sentencePiece, input);
    fuzz::encodeAndCheck(*byteLevel, input);
}
