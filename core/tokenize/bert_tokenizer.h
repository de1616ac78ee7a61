#pragma once
// BERT WordPiece (vocab.txt), matching transformers' BertTokenizer with add_special_tokens:
// [CLS] + basic tokenization + WordPiece + [SEP]. Options come from tokenizer_config.json when
// present: do_lower_case (default true), strip_accents (default: as do_lower_case),
// tokenize_chinese_chars (default true) and the special token strings (unk_token, sep_token,
// pad_token, cls_token, mask_token; defaults "[UNK]", "[SEP]", "[PAD]", "[CLS]", "[MASK]").
// Special tokens typed in the text ("[MASK]", case-sensitive) are kept whole, as in transformers.
#include <filesystem>
#include <string>

#include "core/tokenize/added_tokens.h"
#include "core/tokenize/bert_basic_tokenizer.h"
#include "core/tokenize/tokenizer.h"
#include "core/tokenize/vocabulary.h"

namespace qkv {

class BertTokenizer final : public Tokenizer {
  public:
    // `tokenizerConfig` may not exist; the defaults apply then.
    BertTokenizer(const std::filesystem::path& vocabTxt,
                  const std::filesystem::path& tokenizerConfig);

    std::vector<Token> encode(std::string_view text) const override;
    int vocabSize() const override { return m_vocab.size(); }
    std::string piece(int id) const override { return m_vocab.at(id); }
    std::string displayText(int id) const override;

  private:
    Vocabulary m_vocab;
    BasicTokenizerOptions m_options;
    AddedTokenMatcher m_specials;
    int m_unknownId = 0;
    int m_clsId = 0;
    int m_sepId = 0;
};

}  // namespace qkv
