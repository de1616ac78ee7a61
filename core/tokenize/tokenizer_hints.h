#pragma once
// What a model's family says of its tokenizer files where they do not say it themselves (a
// vocab.json + merges.txt without tokenizer_config.json's tokenizer_class). The family knows
// (ModelFamily::tokenizer); a folder of no family (a tokenizer being trained) gives none.
namespace qkv {

struct TokenizerHints {
    // How a vocab.json + merges.txt is run: unknown (told from the vocabulary), GPT-2's, RoBERTa's
    // (BART's too), or Qwen2's (vocab_merges_layout.h).
    enum class Style { Unknown, Gpt2, Roberta, Qwen2 };
    Style style = Style::Unknown;
    bool alwaysAddsBos = false;  // prepends its BOS whatever add_bos_token says (OPT's </s>)
};

}  // namespace qkv
