// Arbitrary bytes (invalid UTF-8 included) through BERT's uncased WordPiece tokenizer and a tiny
// cased one (no lower-casing or accent stripping).
#include "core/tokenize/bert_tokenizer.h"
#include "tests/fuzz/fuzz_support.h"
#include "tests/fuzz/fuzz_target.h"

using namespace qkv;

QKV_FUZZ_TARGET(bert_encode) {
    static const BertTokenizer uncased = fuzz::loadFixture([] {
        return BertTokenizer(fuzz::assetPath("tokenizers/bert-base-uncased/vocab.txt",
                                             "tokenizers/bert-cased-tiny/vocab.txt"),
                             fuzz::scratchDir() / "absent_tokenizer_config.json");
    });
    static const BertTokenizer cased = fuzz::loadFixture([] {
        return BertTokenizer(
            fuzz::testDataPath("tokenizers/bert-cased-tiny/vocab.txt"),
            fuzz::testDataPath("tokenizers/bert-cased-tiny/tokenizer_config.json"));
    });
    fuzz::encodeAndCheck(uncased, input);
    fuzz::encodeAndCheck(cased, input);
}
