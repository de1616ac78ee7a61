#pragma once
// Hugging Face tokenizer.json with a BPE model (Llama / SentencePiece style with byte fallback,
// or byte-level like Llama 3), run as the tokenizers library runs it:
//   1. added_tokens that are not "normalized" are cut out of the raw text;
//   2. the normalizer runs on each remaining part (normalizers.h);
//   3. "normalized" added tokens are cut out of the normalized text;
//   4. the pre-tokenizer splits the rest into words (pre_tokenizers.h);
//   5. the BPE model tokenizes each word (bpe_model.h);
//   6. the post-processor adds special tokens (post_processors.h).
// Added tokens found in the text keep their span and special = false; only tokens the
// post-processor adds are special. truncation and padding settings are ignored: callers decide
// what to do with long inputs.
#include <filesystem>
#include <memory>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/tokenize/added_tokens.h"
#include "core/tokenize/bpe_model.h"
#include "core/tokenize/normalizers.h"
#include "core/tokenize/post_processors.h"
#include "core/tokenize/pre_tokenizers.h"
#include "core/tokenize/tokenizer.h"

namespace qkv {

class JsonBpeTokenizer final : public Tokenizer {
  public:
    explicit JsonBpeTokenizer(const std::filesystem::path& tokenizerJson);
    // A tokenizer.json document already parsed (or built, vocab_merges_layout.h); `file` names it
    // in errors.
    JsonBpeTokenizer(const nlohmann::json& doc, const std::string& file);
    ~JsonBpeTokenizer() override;

    std::vector<Token> encode(std::string_view text) const override;
    int vocabSize() const override;
    std::string piece(int id) const override;
    std::string displayText(int id) const override;

  private:
    using WordCache = std::unordered_map<std::string, std::vector<PieceSpan>>;
    void encodePart(const NormalizedText& part, std::string_view text, WordCache& cache,
                    std::vector<Token>& tokens) const;

    std::unique_ptr<BpeModel> m_model;
    Vocabulary m_added;  // added tokens' pieces by id (they take precedence, as in tokenizers)
    AddedTokenMatcher m_rawAdded;
    AddedTokenMatcher m_normalizedAdded;
    std::unique_ptr<Normalizer> m_normalizer;
    std::unique_ptr<PreTokenizer> m_preTokenizer;
    PostProcessor m_postProcessor;
    bool m_byteLevel = false;  // pieces are in GPT-2's byte-level alphabet (for display)
};

}  // namespace qkv
