#pragma once
// Tokenizers turn UTF-8 text into model token ids, keeping for each token the byte span of the
// input it came from (for display). Implementations: GPT-2 byte-level BPE (vocab.json +
// merges.txt, gpt2_tokenizer.h), BERT WordPiece (vocab.txt, bert_tokenizer.h), and Hugging Face
// tokenizer.json BPE with byte fallback (Llama / SentencePiece style, json_bpe_tokenizer.h), and
// SentencePiece models (T5, Marian; sentencepiece_tokenizer.h). All ids match Hugging Face's
// tokenizers.
//
// Spans always start and end on character boundaries of the input, so text.substr(begin,
// end - begin) is valid UTF-8: a token holding only some bytes of a character (byte-level or
// <0xXX> byte-fallback pieces) spans that whole character, and the tokens sharing a character
// share its span. A token made from text that normalization rewrote (lower-casing, accent
// stripping, NFKC, " " -> "▁") spans the original characters; a "▁" that normalization prepended
// spans nothing (begin == end). Empty text gives no tokens apart from the special tokens the
// tokenizer adds ([CLS] [SEP], <s>).
#include <cstddef>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/tokenize/tokenizer_hints.h"

namespace qkv {

struct Token {
    int id = 0;
    std::string piece;      // the vocabulary entry, as HF's convert_ids_to_tokens shows it
    std::size_t begin = 0;  // byte span [begin, end) of the input text; empty for added
    std::size_t end = 0;    // special tokens such as [CLS] or <s> (at 0, or at the text's end
                            // for those after it, such as [SEP])
    bool special = false;   // added by the tokenizer ([CLS], [SEP], <s>), not from the text;
                            // a special token typed in the text ("[MASK]") is not special here
};

class Tokenizer {
  public:
    virtual ~Tokenizer() = default;

    // Throws qkv::Error for text that is not valid UTF-8 (naming the byte offset), or for text
    // the vocabulary cannot represent at all (a tiny GPT-2 vocabulary without <|endoftext|>).
    // Safe to call from several threads at once.
    virtual std::vector<Token> encode(std::string_view text) const = 0;
    // The target side of a translation model (the decoder's text), where it is tokenized
    // differently (Marian's target.spm); encode() elsewhere.
    virtual std::vector<Token> encodeTarget(std::string_view text) const { return encode(text); }

    virtual int vocabSize() const = 0;
    // The vocabulary entry for an id (for displaying --ids input); throws for ids out of range.
    virtual std::string piece(int id) const = 0;
    // Human-readable text of a piece: GPT-2's byte-level "Ġmovie" -> " movie", "▁Once" -> " Once",
    // "##ing" -> "ing", byte-fallback "<0x0A>" -> "\n". Used for tick labels and token chips.
    // Always valid UTF-8: bytes that are only part of a character show as "<0xXX>".
    virtual std::string displayText(int id) const = 0;
};

// Loads the tokenizer that a model folder carries: spiece.model (T5) or source.spm + vocab.json
// (Marian) if present, else vocab.json + merges.txt (GPT-2;
// RoBERTa, Qwen2 and BOS-adding variants through vocab_merges_layout.h),
// else vocab.txt (BERT; lower-casing from tokenizer_config.json's do_lower_case, default true),
// else tokenizer.json (BPE model). Throws qkv::Error naming the folder when there is none, and
// naming the file and the problem when one is malformed or uses an unsupported feature. `hints`:
// what the model's family says where the files do not (tokenizer_hints.h).
std::unique_ptr<Tokenizer> loadTokenizer(const std::filesystem::path& modelDir,
                                         const TokenizerHints& hints = {});

}  // namespace qkv
