// Arbitrary bytes (invalid UTF-8 included) through GPT-2's tokenizer, and through gpt-nano-sort's
// three-piece vocabulary, whose unknown bytes take the error path.
#include "core/tokenize/gpt2_tokenizer.h"
#include "tests/fuzz/fuzz_support.h"
#include "tests/fuzz/fuzz_target.h"

using namespace qkv;

namespace {

Gpt2Tokenizer load(const std::filesystem::path& shared, const std::filesystem::path& data) {
    return fuzz::loadFixture([&] {
        return Gpt2Tokenizer(fuzz::assetPath(shared / "vocab.json", data / "vocab.json"),
                             fuzz::assetPath(shared / "merges.txt", data / "merges.txt"));
    });
}

}  // namespace

QKV_FUZZ_TARGET(gpt2_encode) {
    static const Gpt2Tokenizer gpt2 = load("tokenizers/gpt2", "tokenizers/gpt2-tiny");
    static const Gpt2Tokenizer tiny = load("models/gpt-nano-sort", "tokenizers/gpt2-tiny");
    fuzz::encodeAndCheck(gpt2, input);
    fuzz::encodeAndCheck(tiny, input);
}
