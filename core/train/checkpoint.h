#pragma once
// A trained model as a Hugging Face GPT-2 folder, loadable by Model::open and by transformers:
//   config.json            model_type "gpt2", n_layer, n_head, n_embd, n_positions, n_ctx,
//                          vocab_size, activation_function "gelu_new", layer_norm_epsilon 1e-5,
//                          tie_word_embeddings true, bos/eos = "<|endoftext|>"
//   tokenizer_config.json  GPT2Tokenizer with model_max_length = the context
//   model.safetensors      float32, Hub gpt2 names without prefix (wte.weight, h.N.attn.c_attn.*,
//                          ...); c_attn holds q | k | v columns, a tied slot repeating its
//                          source's values, so tied matrices are bytewise identical.
// vocab.json and merges.txt come from writeGpt2TokenizerFiles (core/tokenize/bpe_trainer.h).
// Every file is written atomically.
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "core/train/parameters.h"

namespace qkv::train {

void writeConfigJson(const ModelShape& shape, int endOfTextId, const std::filesystem::path& folder);

// `metadata` goes into the safetensors header next to {"format": "pt"}.
void writeModelWeights(const ModelShape& shape, const std::vector<float>& params,
                       const std::map<std::string, std::string>& metadata,
                       const std::filesystem::path& folder);

// A layer's fused c_attn weight [d, 3d] and bias [3d] built from its attention sources.
void fuseAttention(const ModelShape& shape, const ParameterLayout& layout,
                   const std::vector<float>& params, int layer, std::vector<float>& weight,
                   std::vector<float>& bias);

}  // namespace qkv::train
