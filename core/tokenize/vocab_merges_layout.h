#pragma once
// vocab.json + merges.txt tokenizers that are not GPT-2's own, in the tokenizer.json layout that
// Hugging Face's converters (transformers' convert_slow_tokenizer) give them, so that
// JsonBpeTokenizer runs them:
//   RoBERTa   byte-level BPE, <s> … </s> around the text (RobertaProcessing), <mask> lstrip;
//             BART's tokenizer is the same;
//   Qwen2     NFC, Qwen2's own split regex, then byte-level BPE; added tokens from
//             tokenizer_config.json's added_tokens_decoder;
//   GPT-2     with tokenizer_config.json's add_bos_token (OPT prepends </s>): bos + text.
// Which one a folder holds is read from tokenizer_config.json's tokenizer_class, else the model
// family's hints, else the vocabulary (<s>, </s> and <mask>: RoBERTa).
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>

#include "core/tokenize/tokenizer_hints.h"

namespace qkv {

// The tokenizer.json document for the folder's vocab.json + merges.txt, or nullopt when they are
// a plain GPT-2 tokenizer (Gpt2Tokenizer reads those directly).
std::optional<nlohmann::json> vocabMergesLayout(const std::filesystem::path& folder,
                                                const TokenizerHints& hints = {});

}  // namespace qkv
