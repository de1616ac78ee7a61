#pragma once
// A GGUF file's own tokenizer (tokenizer.ggml.*), of the two kinds real files carry, turned into
// the tokenizer.json Hugging Face ships with such models and run by the tokenizer engine
// (json_bpe_tokenizer.h):
//   "gpt2"   byte-level BPE (Llama 3, Qwen, gpt-oss): tokens, token_type, merges, and the `pre`
//            name that selects the split pattern;
//   "llama"  SentencePiece (Llama 2, Mistral, Gemma, Phi-3): tokens, scores and token_type, run
//            as llama.cpp and SentencePiece run them.
// BOS and EOS are added where the file says (tokenizer.ggml.add_bos_token, add_eos_token), or
// where llama.cpp adds them when it does not.
#include <memory>

#include "core/io/gguf.h"
#include "core/tokenize/tokenizer.h"

namespace qkv {

// Throws qkv::Error saying what is missing or not read yet: no tokenizer.ggml.model, another
// kind, a `pre` name QKV Lab has no pattern for.
std::unique_ptr<Tokenizer> ggufTokenizer(const GgufFile& file);

}  // namespace qkv
