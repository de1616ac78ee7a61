#pragma once
// A GGUF file (llama.cpp, Ollama, LM Studio) as a checkpoint: the config.json Hugging Face would
// write for the model its metadata describes, and its tensors under Hugging Face's names in their
// stored formats, with what llama.cpp's converter did undone — Llama's per-head row order of W_Q
// and W_K (for ggml's adjacent-pair rotary), Gemma's norm weights stored as 1 + w, Llama 3.1's
// rope_freqs tensor — and what llama.cpp fixes for an architecture set as it does. The family
// readers and binders then open it as they open a folder. Architectures: llama (and Mixtral),
// qwen2, qwen3, qwen3moe, gemma2, gemma3, gemma4, olmo2, phi3, smollm3, deepseek2, gpt-oss and
// modern-bert; a layer's stacked experts are viewed one matrix each.
#include <filesystem>
#include <memory>
#include <string>

#include "core/io/safetensors.h"
#include "core/tokenize/tokenizer.h"

namespace qkv {

struct GgufCheckpoint {
    std::string configJson;
    std::unique_ptr<TensorStore> store;
    std::string formats;  // "GGUF: Q4_K 12 tensors, Q6_K 3, F32 9", most used first
    std::unique_ptr<Tokenizer> tokenizer;  // the file's own (gguf_tokenizer.h), or null and
    std::string tokenizerError;            // why there is none
};

// Throws qkv::Error naming the file and the key or tensor at fault: an architecture QKV Lab does
// not read, a tensor type it does not decode, a tensor it does not know.
GgufCheckpoint openGgufCheckpoint(const std::filesystem::path& file);

}  // namespace qkv
