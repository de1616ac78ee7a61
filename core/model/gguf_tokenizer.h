#pragma once
// A GGUF file's own tokenizer (tokenizer.ggml.*), for the byte-level BPE kind real Llama 3,
// Qwen and gpt-oss files carry (tokenizer.ggml.model = "gpt2"): tokens, token_type, merges and
// the `pre` name that selects the split pattern are turned into the tokenizer.json Hugging Face
// ships with those models, and run by the tokenizer engine (json_bpe_tokenizer.h).
#include <memory>

#include "core/io/gguf.h"
#include "core/tokenize/tokenizer.h"

namespace qkv {

// Throws qkv::Error saying what is missing or not read yet: no tokenizer.ggml.model, the
// SentencePiece kind ("llama"), a `pre` name QKV Lab has no pattern for.
std::unique_ptr<Tokenizer> ggufTokenizer(const GgufFile& file);

}  // namespace qkv
