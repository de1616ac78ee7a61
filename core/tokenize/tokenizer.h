#pragma once
// Tokenizers turn UTF-8 text into model token ids, keeping for each token the byte span of the
// input it came from (for display). Implementations: GPT-2 byte-level BPE (vocab.json +
// merges.txt), BERT WordPiece (vocab.txt), and Hugging Face tokenizer.json BPE with byte fallback
// (Llama / SentencePiece style). All ids match Hugging Face's tokenizers.
#include <cstddef>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace qkv {

struct Token {
    int id = 0;
    std::string piece;      // the vocabulary entry, as HF's convert_ids_to_tokens shows it
    std::size_t begin = 0;  // byte span [begin, end) of the input text; empty for added
    std::size_t end = 0;    // special tokens such as [CLS] or <s>
    bool special = false;   // added by the tokenizer ([CLS], [SEP], <s>), not from the text
};

class Tokenizer {
public:
    virtual ~Tokenizer() = default;

    // Throws qkv::Error for text that is not valid UTF-8 (naming the byte offset).
    virtual std::vector<Token> encode(std::string_view text) const = 0;

    virtual int vocabSize() const = 0;
    // The vocabulary entry for an id (for displaying --ids input); throws for ids out of range.
    virtual std::string piece(int id) const = 0;
    // Human-readable text of a piece: GPT-2's byte-level "Ġmovie" -> " movie", "▁Once" -> " Once",
    // "##ing" -> "ing", byte-fallback "<0x0A>" -> "\n". Used for tick labels and token chips.
    virtual std::string displayText(int id) const = 0;
};

// Loads the tokenizer that a model folder carries: vocab.json + merges.txt (GPT-2) if present,
// else vocab.txt (BERT; lower-casing from tokenizer_config.json's do_lower_case, default true),
// else tokenizer.json (BPE model). Throws qkv::Error naming the folder when none is usable.
std::unique_ptr<Tokenizer> loadTokenizer(const std::filesystem::path& modelDir);

}  // namespace qkv
