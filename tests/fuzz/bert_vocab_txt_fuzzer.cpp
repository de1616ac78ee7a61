// BERT vocab.txt; the first input byte picks one of a few tokenizer_config.json variants (absent,
// cased, lower-case without accent stripping and a custom mask token). Then sample texts.
#include "core/tokenize/bert_tokenizer.h"
#include "tests/fuzz/fuzz_support.h"
#include "tests/fuzz/fuzz_target.h"
#include "tests/fuzz/tokenizer_samples.h"

using namespace qkv;

QKV_FUZZ_TARGET(bert_vocab_txt) {
    static const std::filesystem::path configs[] = {
        fuzz::scratchDir() / "absent_tokenizer_config.json",
        fuzz::writeScratch("cased_tokenizer_config.json", R"({"do_lower_case": false})"),
        fuzz::writeScratch("lower_tokenizer_config.json",
                           R"({"do_lower_case": true, "strip_accents": false,
                               "tokenize_chinese_chars": false, "mask_token": "<mask>"})"),
    };
    if (input.empty()) return;
    const auto& config = configs[static_cast<unsigned char>(input[0]) % std::size(configs)];
    const auto vocab = fuzz::writeScratch("vocab.txt", input.substr(1));
    const BertTokenizer tokenizer(vocab, config);
    fuzz::encodeSamples(tokenizer);
}
